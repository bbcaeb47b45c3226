package wasmeval

import (
	"bytes"
	"context"
	"sync"

	"github.com/tetratelabs/wazero"
)

// sharedCache is the compilation cache of every Policy in the process.
// wazero keys compiled code by the module's bytes, and OPA compiles only
// the Rego to Wasm (the data is loaded into memory afterwards), so a policy
// loaded again with the same Rego (a data-only edit such as a new agent, a
// Caddy reload, every gate a test starts) reuses the native code instead of
// compiling it again: tens of ms a load, half a second under the race
// detector.
var sharedCache = wazero.NewCompilationCache()

// keptModules is how many distinct modules stay compiled with no instance
// using them: the serving policy's and the one before it, so that a
// reload back and forth does not compile either.
const keptModules = 2

// kept holds the most recently loaded modules compiled in sharedCache.
// wazero drops a module's code as soon as no runtime uses it, which
// between one Policy's Close and the next load (a reload that replaces
// the policy, the next test's gate) is always the case; a module compiled
// by keeper's runtime keeps it. Older ones are closed (their code goes
// once the last instance using it closes), so the memory held is bounded.
var kept struct {
	mu      sync.Mutex
	keeper  wazero.Runtime
	modules []keptModule // least recently loaded first
}

type keptModule struct {
	wasm     []byte
	compiled wazero.CompiledModule
}

// keepCompiled compiles wasm in sharedCache (a cache hit when it was kept)
// and keeps it compiled. An error is the module's compile error, which
// instantiating it would report too.
func keepCompiled(ctx context.Context, wasm []byte) error {
	kept.mu.Lock()
	defer kept.mu.Unlock()
	for i, m := range kept.modules {
		if bytes.Equal(m.wasm, wasm) {
			kept.modules = append(append(kept.modules[:i:i], kept.modules[i+1:]...), m)
			return nil
		}
	}
	if kept.keeper == nil {
		kept.keeper = wazero.NewRuntimeWithConfig(context.Background(), runtimeConfig())
	}
	compiled, err := kept.keeper.CompileModule(ctx, wasm)
	if err != nil {
		return err
	}
	kept.modules = append(kept.modules, keptModule{wasm: wasm, compiled: compiled})
	if len(kept.modules) > keptModules {
		_ = kept.modules[0].compiled.Close(context.Background())
		kept.modules = append(kept.modules[:0:0], kept.modules[1:]...)
	}
	return nil
}

// runtimeConfig is every runtime's configuration; the keeper's must be the
// instances' for their compiled code to be the same cache entry.
func runtimeConfig() wazero.RuntimeConfig {
	return wazero.NewRuntimeConfig().WithCompilationCache(sharedCache)
}
