package wasmeval

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/open-policy-agent/opa/v1/topdown/builtins"
	"github.com/tetratelabs/wazero/api"
)

// hostModule instantiates the "opa" host module the glue re-exports:
// opa_abort, opa_println and opa_builtin0..4, bound to inst.
func (inst *instance) hostModule(ctx context.Context) error {
	b := inst.rt.NewHostModuleBuilder(hostModule)
	i32 := api.ValueTypeI32
	for _, f := range hostFuncs {
		params := make([]api.ValueType, f.params)
		for i := range params {
			params[i] = i32
		}
		var fn api.GoModuleFunc
		var results []api.ValueType
		switch f.name {
		case "opa_abort":
			fn = inst.opaAbort
		case "opa_println":
			fn = func(context.Context, api.Module, []uint64) {} // print() is compiled out
		default:
			fn, results = inst.opaBuiltin(f.params-2), []api.ValueType{i32}
		}
		b.NewFunctionBuilder().WithGoModuleFunction(fn, params, results).Export(f.name)
	}
	_, err := b.Instantiate(ctx)
	return err
}

// opaAbort records the policy's message and stops the evaluation: the
// panic unwinds through wazero, which returns it as the call's error.
func (inst *instance) opaAbort(_ context.Context, _ api.Module, stack []uint64) {
	msg, err := inst.cString(int32(uint32(stack[0])))
	if err != nil {
		inst.abort = "(unreadable abort message)"
	} else {
		inst.abort = string(msg)
	}
	panic(errors.New("opa_abort: " + inst.abort))
}

// opaBuiltin is opa_builtinN(id, ctx, arg1..argN) → result address, 0 for
// undefined.
func (inst *instance) opaBuiltin(arity int) api.GoModuleFunc {
	return func(ctx context.Context, _ api.Module, stack []uint64) {
		id := int32(uint32(stack[0]))
		args := make([]int32, arity)
		for i := range args {
			args[i] = int32(uint32(stack[2+i]))
		}
		addr, err := inst.callBuiltin(ctx, id, args)
		if err != nil {
			inst.abort = err.Error()
			panic(err)
		}
		stack[0] = uint64(uint32(addr))
	}
}

// callBuiltin runs topdown's implementation of built-in id on the values
// at args and writes its result back into the instance's memory. As in
// topdown's default (non-strict) mode, a built-in's error makes its result
// undefined; only a halting error (cancellation...) stops the evaluation.
func (inst *instance) callBuiltin(ctx context.Context, id int32, args []int32) (int32, error) {
	f, ok := inst.builtins[id]
	if !ok {
		return 0, fmt.Errorf("wasm policy called unknown built-in %d", id)
	}
	terms := make([]*ast.Term, len(args))
	for i, addr := range args {
		t, err := inst.readValue(ctx, addr)
		if err != nil {
			return 0, err
		}
		terms[i] = t
	}
	var out *ast.Term
	err := f(*inst.builtinContext(ctx), terms, func(t *ast.Term) error {
		out = t
		return nil
	})
	if err != nil {
		var halt topdown.Halt
		if errors.As(err, &halt) {
			return 0, fmt.Errorf("built-in: %w", err)
		}
		return 0, nil
	}
	if out == nil {
		return 0, nil
	}
	return inst.writeValue(ctx, out)
}

// builtinContext is the evaluation's built-in context, made on the first
// built-in call so that evaluations calling none pay nothing for it; every
// call of one evaluation sees the same time.
func (inst *instance) builtinContext(ctx context.Context) *topdown.BuiltinContext {
	if inst.bctx == nil {
		inst.bctx = &topdown.BuiltinContext{
			Context: ctx,
			Seed:    rand.Reader,
			Time:    ast.NumberTerm(json.Number(strconv.FormatInt(time.Now().UnixNano(), 10))),
			Cancel:  topdown.NewCancel(),
			Cache:   make(builtins.Cache),
		}
	}
	return inst.bctx
}

// readValue reads the OPA value at addr as a term (opa_value_dump writes
// it in Rego syntax, sets included).
func (inst *instance) readValue(ctx context.Context, addr int32) (*ast.Term, error) {
	str, err := inst.call(ctx, "opa_value_dump", addr)
	if err != nil {
		return nil, err
	}
	raw, err := inst.cString(str)
	if err != nil {
		return nil, err
	}
	return ast.ParseTerm(string(raw))
}

// writeValue parses t into the instance's heap. JSON when t has a JSON
// form (strings escaped as JSON, which Rego's own quoting is not), else
// its Rego text (a set).
func (inst *instance) writeValue(ctx context.Context, t *ast.Term) (int32, error) {
	var raw []byte
	if v, err := ast.JSON(t.Value); err == nil {
		raw, err = json.Marshal(v)
		if err != nil {
			return 0, err
		}
	} else {
		raw = []byte(t.String())
	}
	return inst.parseJSON(ctx, raw)
}
