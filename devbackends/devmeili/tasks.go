package devmeili

import (
	"net/http"
	"strconv"
	"sync"
	"time"
)

// task is one asynchronous write as GET /tasks/{uid} shows it
// (docs/backends.md, Meilisearch wire details: Tasks). The development server
// applies a write before it answers, so a task is already final when its 202
// is sent; clients still poll it, as they must against the engine, and see
// the same shapes.
type task struct {
	uid        int
	indexUID   string
	kind       string
	details    orderedObject
	err        *apiError
	enqueuedAt time.Time
}

// taskLog keeps every task of the process; ingest runs are small, so it is
// not bounded beyond the process's life.
type taskLog struct {
	mu    sync.Mutex
	tasks []task
}

// add records a finished task and returns its uid.
func (l *taskLog) add(t task) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	t.uid = len(l.tasks)
	l.tasks = append(l.tasks, t)
	return t.uid
}

func (l *taskLog) get(uid int) (task, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if uid < 0 || uid >= len(l.tasks) {
		return task{}, false
	}
	return l.tasks[uid], true
}

// enqueue records the outcome of a write and answers 202 with the summarized
// task, as the engine does whatever the task's fate (docs/backends.md,
// Meilisearch wire details: Tasks).
func (s *Server) enqueue(w http.ResponseWriter, t task) {
	t.enqueuedAt = s.now().UTC()
	t.uid = s.tasks.add(t)
	writeJSON(w, http.StatusAccepted, orderedObject{
		{"taskUid", t.uid}, {"indexUid", t.indexUIDValue()}, {"status", "enqueued"},
		{"type", t.kind}, {"enqueuedAt", t.enqueuedAt.Format(time.RFC3339Nano)},
	})
}

func (s *Server) handleGetTask(w http.ResponseWriter, r *http.Request, _ credential) *apiError {
	raw := r.PathValue("taskUid")
	uid, err := strconv.Atoi(raw)
	if err != nil {
		return newError("invalid_task_uids", "Task uid `%s` is invalid. It should only contain numeric characters.", raw)
	}
	t, ok := s.tasks.get(uid)
	if !ok {
		e := newError("task_not_found", "Task `%s` not found.", raw)
		e.status = http.StatusNotFound
		return e
	}
	writeJSON(w, http.StatusOK, t.view())
	return nil
}

// indexUIDValue is the task's index, null for a global task (indexSwap).
func (t task) indexUIDValue() any {
	if t.indexUID == "" {
		return nil
	}
	return t.indexUID
}

// view is the TaskView of a final task.
func (t task) view() orderedObject {
	status, errBody := "succeeded", any(nil)
	if t.err != nil {
		status, errBody = "failed", t.err
	}
	at := t.enqueuedAt.Format(time.RFC3339Nano)
	v := orderedObject{
		{"uid", t.uid}, {"batchUid", t.uid}, {"indexUid", t.indexUIDValue()}, {"status", status},
		{"type", t.kind}, {"canceledBy", nil},
	}
	if t.details != nil {
		v = append(v, field{"details", t.details})
	}
	return append(v, orderedObject{
		{"error", errBody}, {"duration", "PT0S"},
		{"enqueuedAt", at}, {"startedAt", at}, {"finishedAt", at},
	}...)
}
