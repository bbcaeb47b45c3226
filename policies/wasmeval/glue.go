package wasmeval

// An OPA policy.wasm does not own its linear memory: it imports it, with
// the host functions opa_abort, opa_println and opa_builtin0..4, all from a
// module named "env". A wazero host module can export functions but not a
// memory, so, as OPA's own SDK does (internal/wasm/sdk/internal/wasm/glue.go),
// the host functions live in a host module named "opa" and a tiny Wasm
// module named "env" defines the memory, imports the host functions from
// "opa" and re-exports both. OPA builds that module with its internal
// encoder; it is written out by hand here, byte by byte, because those
// packages cannot be imported.

// hostModule names the wazero host module holding the Go host functions.
const hostModule = "opa"

// hostFunc is one host function the policy imports: its name and its
// index into glueTypes.
type hostFunc struct {
	name    string
	typeIdx byte
	params  int // i32 parameters
}

// hostFuncs are the glue module's imports, in function index order.
var hostFuncs = []hostFunc{
	{name: "opa_builtin0", typeIdx: 1, params: 2},
	{name: "opa_builtin1", typeIdx: 2, params: 3},
	{name: "opa_builtin2", typeIdx: 3, params: 4},
	{name: "opa_builtin3", typeIdx: 4, params: 5},
	{name: "opa_builtin4", typeIdx: 5, params: 6},
	{name: "opa_abort", typeIdx: 0, params: 1},
	{name: "opa_println", typeIdx: 0, params: 1},
}

// Wasm binary format constants (WebAssembly core spec §5).
const (
	sectionType   = 1
	sectionImport = 2
	sectionMemory = 5
	sectionExport = 7
	kindFunc      = 0x00
	kindMemory    = 0x02
	typeFunc      = 0x60
	typeI32       = 0x7f
)

// glueModule encodes the "env" module: memory of minPages (no maximum:
// the policy's data decides how much it needs) and the host functions.
func glueModule(minPages uint32) []byte {
	out := []byte{0x00, 'a', 's', 'm', 0x01, 0x00, 0x00, 0x00}

	// Types 0..5: (i32)→(), then (i32 × n+2)→i32 for opa_builtin0..4.
	types := uleb(6)
	types = append(types, typeFunc, 1, typeI32, 0)
	for n := 2; n <= 6; n++ {
		types = append(types, typeFunc, byte(n))
		for range n {
			types = append(types, typeI32)
		}
		types = append(types, 1, typeI32)
	}
	out = appendSection(out, sectionType, types)

	imports := uleb(uint32(len(hostFuncs)))
	for _, f := range hostFuncs {
		imports = appendName(imports, hostModule)
		imports = appendName(imports, f.name)
		imports = append(imports, kindFunc, f.typeIdx)
	}
	out = appendSection(out, sectionImport, imports)

	memory := append(uleb(1), 0x00) // one memory, limits without a maximum
	memory = append(memory, uleb(minPages)...)
	out = appendSection(out, sectionMemory, memory)

	exports := uleb(uint32(1 + len(hostFuncs)))
	exports = appendName(exports, "memory")
	exports = append(exports, kindMemory, 0)
	for i, f := range hostFuncs {
		exports = appendName(exports, f.name)
		exports = append(exports, kindFunc)
		exports = append(exports, uleb(uint32(i))...)
	}
	return appendSection(out, sectionExport, exports)
}

func appendSection(out []byte, id byte, content []byte) []byte {
	out = append(out, id)
	out = append(out, uleb(uint32(len(content)))...)
	return append(out, content...)
}

func appendName(out []byte, name string) []byte {
	out = append(out, uleb(uint32(len(name)))...)
	return append(out, name...)
}

// uleb is v in unsigned LEB128.
func uleb(v uint32) []byte {
	var out []byte
	for {
		b := byte(v & 0x7f)
		v >>= 7
		if v == 0 {
			return append(out, b)
		}
		out = append(out, b|0x80)
	}
}
