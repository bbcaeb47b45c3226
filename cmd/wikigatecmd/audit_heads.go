package wikigatecmd

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/wikigate/wikigate/audit"
)

// publishedHeads gathers the heads to check the files against: each
// --head, and from --heads-from the latest head of every stream whose
// published file has the name of one of files (a copy of the log verified
// elsewhere keeps its name). Asked for heads and finding none is an error:
// a check that compares nothing must not pass.
func publishedHeads(opt verifyOptions, files []string) ([]audit.Head, error) {
	var heads []audit.Head
	for _, s := range opt.heads {
		h, err := audit.ParseHead(s)
		if err != nil {
			return nil, err
		}
		heads = append(heads, h)
	}
	if opt.headsFrom == "" {
		return heads, nil
	}
	f, err := os.Open(opt.headsFrom)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	published, err := audit.ReadHeads(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", opt.headsFrom, err)
	}
	names := map[string]bool{}
	for _, name := range files {
		names[filepath.Base(name)] = true
	}
	found := 0
	for _, p := range published {
		if p.File == "" || names[filepath.Base(p.File)] {
			heads = append(heads, audit.Head{Stream: p.Stream, Seq: p.Seq, Hash: p.SHA256})
			found++
		}
	}
	if found == 0 {
		return nil, fmt.Errorf("%s holds no published audit chain head for a file named like %v (%d head(s) for other files)", opt.headsFrom, files, len(published))
	}
	return heads, nil
}
