package wasmeval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// ErrUndefined is an evaluation whose entrypoint produced no result.
var ErrUndefined = errors.New("wasm policy result is undefined")

// Policy is one compiled policy with its data, ready to evaluate
// concurrently. It is safe for concurrent use.
type Policy struct {
	wasm        []byte
	entrypoints map[string]int32
	builtins    map[int32]topdown.BuiltinFunc
	builtinName map[int32]string

	// image is the linear memory of an instance that has just parsed the
	// data, from address 0 up to evalHeap: the module's static memory (the
	// C library's allocator and other state live there, not only in the
	// heap) and the heap holding the data value at dataAddr. Every instance
	// starts as a copy of it, so all of them are in the same state, and
	// the data is parsed once per policy rather than once per instance.
	image    []byte
	heapBase int32
	dataAddr int32
	evalHeap int32
	minPages uint32

	// The pool. Each instance holds a copy of the image (tens of MB with
	// 10,000 agents), so there are at most cap(slots) of them, one per
	// CPU up to maxInstances: an evaluation is CPU-bound, more could not
	// run at once anyway,
	// and one that finds them all busy waits a few microseconds for one
	// rather than copying the image. slots holds a token per live
	// instance, idle the instances not evaluating.
	slots  chan struct{}
	idle   chan *instance
	mu     sync.Mutex // guards closed against put
	closed bool
}

// New instantiates policy (a policy.wasm of ABI 1.2 or later) with data, a
// JSON object that becomes the policy's data document. It fails when the
// module needs a built-in that neither Wasm nor topdown implements.
func New(ctx context.Context, policy, data []byte) (*Policy, error) {
	p := &Policy{
		wasm:  bytes.Clone(policy),
		slots: make(chan struct{}, poolSize()),
		idle:  make(chan *instance, poolSize()),
	}
	if err := keepCompiled(ctx, p.wasm); err != nil {
		return nil, fmt.Errorf("compile wasm policy: %w", err)
	}
	template, err := p.instantiate(ctx, minGluePages)
	if err != nil {
		return nil, err
	}
	defer template.close()
	if err := p.loadData(ctx, template, data); err != nil {
		return nil, err
	}
	// Reading the tables allocates past the image; the template serves
	// no evaluation.
	if err := p.readTables(ctx, template); err != nil {
		return nil, err
	}
	p.slots <- struct{}{}
	first, err := p.spawn(ctx)
	if err != nil {
		return nil, err
	}
	p.idle <- first
	return p, nil
}

// maxInstances caps the pool on large hosts: each instance holds a copy of
// the data image, and eight instances already decide some 200,000
// uncached calls a second.
const maxInstances = 8

// poolSize is one instance per CPU, up to maxInstances. Instances are
// made on demand, so a gate that never decides on more CPUs at once holds
// fewer.
func poolSize() int { return min(runtime.GOMAXPROCS(0), maxInstances) }

// minGluePages is the first instance's memory: OPA's policies import at
// least two 64 KiB pages.
const minGluePages = 2

// loadData parses data into inst's memory and keeps that memory as the
// image every instance starts from.
func (p *Policy) loadData(ctx context.Context, inst *instance, data []byte) error {
	if _, err := inst.call(ctx, "opa_malloc", 0); err != nil { // initializes the heap
		return err
	}
	base, err := inst.call(ctx, "opa_heap_ptr_get")
	if err != nil {
		return err
	}
	addr, err := inst.parseJSON(ctx, data)
	if err != nil {
		return fmt.Errorf("load policy data into wasm: %w", err)
	}
	top, err := inst.call(ctx, "opa_heap_ptr_get")
	if err != nil {
		return err
	}
	image, ok := inst.mem.Read(0, uint32(top))
	if !ok {
		return errors.New("read the parsed data")
	}
	p.heapBase, p.dataAddr, p.evalHeap = base, addr, top
	p.image = bytes.Clone(image)
	p.minPages = inst.mem.Size() / pageSize
	return nil
}

const pageSize = 65536

// recovering is f, with a panic inside it (a built-in that needs
// evaluation state the Wasm host does not hold, such as http.send's
// caches) turned into a halting error naming it: unrecovered, the panic
// would cross into wazero, which puts the Go stack into its error, and so
// into the logs and the decision log.
func recovering(name string, f topdown.BuiltinFunc) topdown.BuiltinFunc {
	return func(bctx topdown.BuiltinContext, operands []*ast.Term, iter func(*ast.Term) error) (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = topdown.Halt{Err: fmt.Errorf("built-in %s failed in the wasm evaluator: %v", name, r)}
			}
		}()
		return f(bctx, operands, iter)
	}
}

// readTables reads the module's entrypoint ids and the built-ins it needs
// from the host, each of which must have a topdown implementation.
func (p *Policy) readTables(ctx context.Context, inst *instance) error {
	var entrypoints, builtins map[string]int32
	if err := inst.readJSONExport(ctx, "entrypoints", &entrypoints); err != nil {
		return err
	}
	if err := inst.readJSONExport(ctx, "builtins", &builtins); err != nil {
		return err
	}
	p.entrypoints = entrypoints
	p.builtins = make(map[int32]topdown.BuiltinFunc, len(builtins))
	p.builtinName = make(map[int32]string, len(builtins))
	for name, id := range builtins {
		f := topdown.GetBuiltin(name)
		if f == nil {
			return fmt.Errorf("wasm policy needs built-in %s, which has no host implementation", name)
		}
		p.builtins[id] = recovering(name, f)
		p.builtinName[id] = name
	}
	return nil
}

// Entrypoint is the id of query (either "data.a.b" or "a/b"); false when
// the module was not compiled with it.
func (p *Policy) Entrypoint(query string) (int32, bool) {
	id, ok := p.entrypoints[EntrypointName(query)]
	return id, ok
}

// Builtins names the built-ins the policy calls back into Go for.
func (p *Policy) Builtins() []string {
	names := make([]string, 0, len(p.builtinName))
	for _, n := range p.builtinName {
		names = append(names, n)
	}
	return names
}

// Eval evaluates entrypoint on input (a JSON document; nil for no input)
// and appends the result's JSON value to dst: the value of the one result,
// not OPA's result set. An undefined result is ErrUndefined; an abort, a
// trap, a failing built-in or several results are errors.
func (p *Policy) Eval(ctx context.Context, entrypoint int32, input []byte, dst []byte) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return dst, err
	}
	inst, err := p.get(ctx)
	if err != nil {
		return dst, err
	}
	out, err := inst.eval(ctx, entrypoint, input, dst)
	if Failed(err) {
		p.discard(inst) // an instance that trapped may hold a broken heap
		return dst, err
	}
	// A completed call, defined or not: the next evaluation resets the
	// heap, so the instance goes back to the pool. (Discarding it on an
	// undefined result made every such call build a new instance: ~90 ms.)
	p.put(inst)
	return out, err
}

// get takes an idle instance, makes one while there are fewer than the
// pool holds, or waits for one to be put back.
func (p *Policy) get(ctx context.Context) (*instance, error) {
	select {
	case inst := <-p.idle:
		return inst, nil
	default:
	}
	select {
	case inst := <-p.idle:
		return inst, nil
	case p.slots <- struct{}{}:
		inst, err := p.spawn(ctx)
		if err != nil {
			<-p.slots
			return nil, err
		}
		return inst, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// spawn makes a new instance from the image.
func (p *Policy) spawn(ctx context.Context) (*instance, error) {
	inst, err := p.instantiate(context.WithoutCancel(ctx), p.minPages)
	if err != nil {
		return nil, err
	}
	if err := p.seed(ctx, inst); err != nil {
		inst.close()
		return nil, err
	}
	return inst, nil
}

func (p *Policy) seed(ctx context.Context, inst *instance) error {
	if _, err := inst.call(ctx, "opa_malloc", 0); err != nil {
		return err
	}
	base, err := inst.call(ctx, "opa_heap_ptr_get")
	if err != nil {
		return err
	}
	if base != p.heapBase {
		return fmt.Errorf("wasm instance heap starts at %d, the data was parsed at %d", base, p.heapBase)
	}
	if !inst.ensureMemory(uint32(p.evalHeap)) || !inst.mem.Write(0, p.image) {
		return errors.New("copy the policy data into a wasm instance")
	}
	if _, err := inst.call(ctx, "opa_heap_ptr_set", p.evalHeap); err != nil {
		return err
	}
	inst.dataAddr, inst.evalHeap, inst.builtins = p.dataAddr, p.evalHeap, p.builtins
	return nil
}

// put returns inst to the pool, or closes it once the policy is closed.
func (p *Policy) put(inst *instance) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		p.discard(inst)
		return
	}
	p.idle <- inst // never blocks: there are no more instances than room
}

// discard closes inst and frees its slot.
func (p *Policy) discard(inst *instance) {
	inst.close()
	<-p.slots
}

// Close releases the idle instances; evaluations still running finish and
// release theirs. A Policy evaluates after Close too (making instances as
// needed), so a request that picked it up just before a reload still gets
// its decision.
func (p *Policy) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for {
		select {
		case inst := <-p.idle:
			p.discard(inst)
		default:
			return
		}
	}
}

// readJSONExport calls a niladic export returning a value address and
// decodes the value's JSON into v.
func (inst *instance) readJSONExport(ctx context.Context, name string, v any) error {
	addr, err := inst.call(ctx, name)
	if err != nil {
		return err
	}
	str, err := inst.call(ctx, "opa_json_dump", addr)
	if err != nil {
		return err
	}
	raw, err := inst.cString(str)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("wasm policy %s: %w", name, err)
	}
	return nil
}
