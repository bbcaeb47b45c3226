package wasmeval

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// instance is one instantiated policy module with its own runtime (the
// "env" module holding its memory is per instance, and wazero names
// modules per runtime) and its data. It serves one evaluation at a time.
type instance struct {
	rt       wazero.Runtime
	mod      api.Module
	mem      api.Memory
	opaEval  api.Function
	stack    []uint64 // opa_eval's arguments and result, reused
	builtins map[int32]topdown.BuiltinFunc
	dataAddr int32
	evalHeap int32

	// Per evaluation: the built-in context (made on the first built-in
	// call) and the message of an opa_abort.
	bctx  *topdown.BuiltinContext
	abort string
}

// instantiate makes an instance of p's module with memory of at least
// pages pages; the data is not loaded yet.
func (p *Policy) instantiate(ctx context.Context, pages uint32) (*instance, error) {
	inst := &instance{}
	rt := wazero.NewRuntimeWithConfig(ctx, runtimeConfig())
	inst.rt = rt
	if err := inst.hostModule(ctx); err != nil {
		inst.close()
		return nil, fmt.Errorf("wasm host functions: %w", err)
	}
	if _, err := rt.InstantiateWithConfig(ctx, glueModule(pages), wazero.NewModuleConfig().WithName("env")); err != nil {
		inst.close()
		return nil, fmt.Errorf("wasm env module: %w", err)
	}
	mod, err := rt.InstantiateWithConfig(ctx, p.wasm, wazero.NewModuleConfig().WithName("policy").WithStartFunctions())
	if err != nil {
		inst.close()
		return nil, fmt.Errorf("instantiate wasm policy: %w", err)
	}
	inst.mod, inst.mem = mod, mod.Memory()
	inst.opaEval = mod.ExportedFunction("opa_eval")
	if inst.mem == nil || inst.opaEval == nil {
		inst.close()
		return nil, errors.New("wasm policy exports no memory or no opa_eval (ABI 1.2 or later is required)")
	}
	if err := checkABI(mod); err != nil {
		inst.close()
		return nil, err
	}
	inst.stack = make([]uint64, 7)
	return inst, nil
}

// checkABI requires ABI 1.2 or later, the first with the one-shot opa_eval.
func checkABI(mod api.Module) error {
	major, minor := mod.ExportedGlobal("opa_wasm_abi_version"), mod.ExportedGlobal("opa_wasm_abi_minor_version")
	if major == nil || minor == nil {
		return errors.New("wasm policy has no ABI version")
	}
	if major.Get() != 1 || minor.Get() < 2 {
		return fmt.Errorf("wasm policy ABI %d.%d, want 1.2 or later", major.Get(), minor.Get())
	}
	return nil
}

func (inst *instance) close() {
	if inst.rt != nil {
		_ = inst.rt.Close(context.Background())
	}
}

// call calls an exported function of i32 arguments and at most one i32
// result (the ABI's functions).
func (inst *instance) call(ctx context.Context, name string, args ...int32) (int32, error) {
	f := inst.mod.ExportedFunction(name)
	if f == nil {
		return 0, fmt.Errorf("wasm policy does not export %s", name)
	}
	params := make([]uint64, len(args))
	for i, a := range args {
		params[i] = uint64(uint32(a))
	}
	inst.abort = ""
	res, err := f.Call(ctx, params...)
	if err != nil {
		return 0, inst.callError(name, err)
	}
	if len(res) == 0 {
		return 0, nil
	}
	return int32(uint32(res[0])), nil
}

// callError names what stopped a call: the policy's own abort message when
// it aborted, else wazero's error (a trap, a failing built-in). It is a
// *callFailure, which tells Eval the instance may be broken.
func (inst *instance) callError(name string, err error) error {
	if inst.abort != "" {
		return &callFailure{fmt.Errorf("wasm policy %s aborted: %s", name, inst.abort)}
	}
	return &callFailure{fmt.Errorf("wasm policy %s: %w", name, err)}
}

// firstLine is s up to its first line break: wazero appends the Wasm call
// stack (and, for a recovered Go panic, the Go stack) to a trap's message,
// which must not reach a log line or a decision-log event.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// callFailure is an error from inside the module: it stopped mid-way, so
// its heap and globals may be inconsistent and the instance is not reused.
// Everything else (an undefined result, a result set of another shape) is
// read after a completed call and leaves the instance as good as new.
type callFailure struct{ err error }

func (f *callFailure) Error() string { return firstLine(f.err.Error()) }
func (f *callFailure) Unwrap() error { return f.err }

// Failed reports whether err is a call that stopped inside the module (an
// abort such as a rule conflict, a trap, a failing built-in): each costs
// the instance it ran on, which is rebuilt from the data image.
func Failed(err error) bool {
	var f *callFailure
	return errors.As(err, &f)
}

// parseJSON copies raw into the instance's heap and parses it into an OPA
// value, returning the value's address.
func (inst *instance) parseJSON(ctx context.Context, raw []byte) (int32, error) {
	p, err := inst.call(ctx, "opa_malloc", int32(len(raw)))
	if err != nil {
		return 0, err
	}
	if !inst.mem.Write(uint32(p), raw) {
		return 0, fmt.Errorf("write %d bytes at %d", len(raw), p)
	}
	addr, err := inst.call(ctx, "opa_value_parse", p, int32(len(raw)))
	if err != nil {
		return 0, err
	}
	if addr == 0 {
		return 0, errors.New("not a JSON value")
	}
	if _, err := inst.call(ctx, "opa_free", p); err != nil {
		return 0, err
	}
	return addr, nil
}

// cString reads the NUL-terminated string at addr; the bytes alias the
// instance's memory.
func (inst *instance) cString(addr int32) ([]byte, error) {
	size := inst.mem.Size()
	if addr <= 0 || uint32(addr) >= size {
		return nil, fmt.Errorf("wasm string address %d outside memory", addr)
	}
	data, _ := inst.mem.Read(uint32(addr), size-uint32(addr))
	n := bytes.IndexByte(data, 0)
	if n < 0 {
		return nil, errors.New("unterminated wasm string")
	}
	return data[:n:n], nil
}

// ensureMemory grows the memory so that it holds end bytes.
func (inst *instance) ensureMemory(end uint32) bool {
	size := inst.mem.Size()
	if end <= size {
		return true
	}
	_, ok := inst.mem.Grow((end - size + pageSize - 1) / pageSize)
	return ok
}

// Arguments of opa_eval (OPA Wasm ABI 1.2): the result is written as JSON.
const formatJSON = 0

// eval runs the one-shot opa_eval: the input is written where the heap
// starts after the data, the heap starts after the input, and everything
// the evaluation allocated is dropped by the next one resetting the heap
// pointer to the same place.
func (inst *instance) eval(ctx context.Context, entrypoint int32, input []byte, dst []byte) ([]byte, error) {
	inputAddr, inputLen := int32(0), int32(0)
	heap := inst.evalHeap
	if input != nil {
		inputAddr, inputLen = heap, int32(len(input))
		if !inst.ensureMemory(uint32(heap)+uint32(inputLen)) || !inst.mem.Write(uint32(heap), input) {
			return dst, errors.New("wasm policy: no memory for the input")
		}
		heap += inputLen
	}
	inst.bctx, inst.abort = nil, ""
	s := inst.stack[:7]
	s[0], s[1], s[2] = 0, uint64(uint32(entrypoint)), uint64(uint32(inst.dataAddr))
	s[3], s[4], s[5], s[6] = uint64(uint32(inputAddr)), uint64(uint32(inputLen)), uint64(uint32(heap)), formatJSON
	err := inst.opaEval.CallWithStack(ctx, s)
	inst.bctx = nil
	if err != nil {
		return dst, inst.callError("opa_eval", err)
	}
	raw, err := inst.cString(int32(uint32(s[0])))
	if err != nil {
		return dst, err
	}
	value, err := singleResult(raw)
	if err != nil {
		return dst, err
	}
	return append(dst, value...), nil
}

// singleResult is the value of the one result in a JSON result set
// ([{"result": value}]).
func singleResult(rs []byte) ([]byte, error) {
	const prefix, suffix = `[{"result":`, `}]`
	switch {
	case bytes.Equal(rs, []byte("[]")):
		return nil, ErrUndefined
	case !bytes.HasPrefix(rs, []byte(prefix)) || !bytes.HasSuffix(rs, []byte(suffix)):
		return nil, fmt.Errorf("wasm policy result set is not one result: %.64q", rs)
	}
	// Two results would leave "},{" at the top level of the inner text:
	// the one value must close exactly at its end.
	value := rs[len(prefix) : len(rs)-len(suffix)]
	if !oneValue(value) {
		return nil, fmt.Errorf("wasm policy result set is not one result: %.64q", rs)
	}
	return value, nil
}

// oneValue reports whether v, JSON the module wrote, is a single value: a
// scalar, or an object or array whose brackets (outside strings) close at
// v's last byte and not before. It checks the shape only, as cheaply as
// a scan can; the reader of the value checks the rest.
func oneValue(v []byte) bool {
	if len(v) == 0 {
		return false
	}
	if v[0] != '{' && v[0] != '[' {
		return !bytes.ContainsAny(v, "{}[],") || (v[0] == '"' && closesAt(v) == len(v)-1)
	}
	return closesAt(v) == len(v)-1
}

// closesAt is the index at which the value starting at v[0] ends: its
// closing bracket, or for a string its closing quote; -1 if it does not.
func closesAt(v []byte) int {
	depth, inString := 0, false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case inString:
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
				if depth == 0 {
					return i
				}
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}
