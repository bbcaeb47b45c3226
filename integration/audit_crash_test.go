package integration

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// auditCrashTemplate is a gate process whose audit records go to a
// hash-chained file (the writer's block: %s), with the development
// backends in the same process.
const auditCrashTemplate = `{
	admin off
	persist_config off
	auto_https off
	grace_period 1s
	log default {
		output stderr
		level WARN
	}
	log audit {
		output wikigate_audit_file %s {
			%s
		}
		include http.handlers.wikigate.audit
	}
}
http://:%d {
	bind 127.0.0.1
	wikigate {
		policy_dir %s
		agent_jwt {
			issuer wikigate-dev
			audience wikigate
			algorithms HS256
			hmac_secret %s
		}
		meilisearch {
			url http://127.0.0.1:%d
			api_key %s
		}
		ragflow {
			url http://127.0.0.1:%d
			api_key %s
		}
	}
}
` + devBackendSites

// auditGate is a gate process and how to start it again on the same
// audit file.
type auditGate struct {
	bin, cfg string
	port     int
}

func newAuditGate(t *testing.T, auditFile, writerOptions string) *auditGate {
	bin := gateBinary(t)
	policy := policyWithData(t, func(data map[string]any) { // the load is one agent's
		limitGroup(t, data, "per_minute", "agents")["search"] = 1_000_000
	})
	port, meiliPort, ragPort := freePort(t), freePort(t), freePort(t)
	cfg := fmt.Sprintf(auditCrashTemplate, auditFile, writerOptions, port, policy, jwtSecret, meiliPort, meiliKey, ragPort, ragflowKey,
		meiliPort, meiliKey, ragPort, ragflowKey)
	return &auditGate{bin: bin, cfg: cfg, port: port}
}

func (a *auditGate) start(t *testing.T, name string) *gateProc {
	return startGateProc(t, a.bin, name, a.port, a.cfg)
}

// load sends searches from 8 callers until the gate stops answering or
// limit passes (at most 20,000 calls), and returns the X-Request-Id of
// every call answered 200 with its whole body. killAfter acknowledged
// calls it kills the gate with SIGKILL, under the load.
func load(t *testing.T, p *gateProc, killAfter int, limit time.Duration) []string {
	t.Helper()
	agent := bearer(agentToken(t, "kunora-coding-agent"))
	client := &http.Client{Timeout: 5 * time.Second}
	var mu sync.Mutex
	var acked []string
	sent := 0
	killed := make(chan struct{})
	var once sync.Once
	stop := time.Now().Add(limit)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for time.Now().Before(stop) {
				mu.Lock()
				sent++
				over := sent > 20000
				mu.Unlock()
				if over {
					return
				}
				status, header, _ := tryPost(client, p.url+"/agent/tools/search", agent, `{"question":"agent memory","limit":3}`)
				if status != "200" {
					select {
					case <-killed:
						return // the gate is gone
					default:
						continue
					}
				}
				mu.Lock()
				acked = append(acked, header.Get("X-Request-Id"))
				n := len(acked)
				mu.Unlock()
				if n == killAfter {
					once.Do(func() { p.kill(); close(killed) })
				}
			}
		})
	}
	wg.Wait()
	once.Do(func() {
		t.Fatalf("the gate acknowledged %d calls in %s, fewer than the %d to kill it after", len(acked), limit, killAfter)
	})
	return acked
}

// stop shuts a gate down as an operator does (SIGINT): a clean close.
func (p *gateProc) stop(t *testing.T) {
	_ = p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.exited:
	case <-time.After(15 * time.Second):
		t.Fatalf("%s did not exit after SIGINT", p.name)
	}
}

// auditedIDs reads the request ids of the file's call records.
func auditedIDs(t *testing.T, file string) map[string]bool {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ids := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		var rec struct {
			RequestID string `json:"request_id"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.RequestID != "" {
			ids[rec.RequestID] = true
		}
	}
	return ids
}

// missing counts the acknowledged calls without a record.
func missing(acked []string, ids map[string]bool) int {
	n := 0
	for _, id := range acked {
		if !ids[id] {
			n++
		}
	}
	return n
}

// verifyCmd runs `wikigate audit verify` on file.
func verifyCmd(t *testing.T, bin string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"audit", "verify"}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, string(out)
}

// A gate killed with SIGKILL under load, then restarted and stopped: the
// file's chain holds, and `audit verify` reports the killed stream's
// unclean end (exit 2), which it could not before; the restarted stream
// ends with its close record.
func TestAuditKillShowsAnUncleanEnd(t *testing.T) {
	file := filepath.Join(t.TempDir(), "audit.log")
	a := newAuditGate(t, file, "")
	acked := load(t, a.start(t, "gate"), 300, 10*time.Second)
	a.start(t, "gate-restarted").stop(t)

	code, out := verifyCmd(t, a.bin, file)
	t.Logf("kill -9 under load (batched mode): %d calls acknowledged, %d of them without a record; verify exit %d:\n%s",
		len(acked), missing(acked, auditedIDs(t, file)), code, out)
	if code != 2 || !strings.HasPrefix(out, "unclean: ") || !strings.Contains(out, "unclean end: stream ") || !strings.Contains(out, "may be lost") {
		t.Fatalf("verify after kill -9: exit %d, want 2 naming the unclean end:\n%s", code, out)
	}
	if strings.Contains(out, "open: ") || strings.Count(out, "head stream ") != 2 {
		t.Errorf("the restarted gate's stream should be closed by its clean stop:\n%s", out)
	}
}

// In the sync mode every call the gate acknowledged before SIGKILL has its
// record in the file: the answer was held until the record's batch was
// written and fsynced.
func TestAuditSyncKeepsEveryAcknowledgedCall(t *testing.T) {
	file := filepath.Join(t.TempDir(), "audit.log")
	a := newAuditGate(t, file, "sync")
	acked := load(t, a.start(t, "gate"), 300, 10*time.Second)
	ids := auditedIDs(t, file)
	lost := missing(acked, ids)
	t.Logf("kill -9 under load (sync mode): %d calls acknowledged, %d records in the file, %d acknowledged calls without a record", len(acked), len(ids), lost)
	if lost != 0 || len(acked) < 300 {
		t.Fatalf("%d of %d acknowledged calls have no record after kill -9 in the sync mode", lost, len(acked))
	}
	a.start(t, "gate-restarted").stop(t)
	if code, out := verifyCmd(t, a.bin, file); code != 2 || !strings.Contains(out, "unclean end: stream ") {
		t.Errorf("verify after kill -9 in the sync mode: exit %d, want 2:\n%s", code, out)
	}
}
