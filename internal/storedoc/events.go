package storedoc

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/darwin-memo/darwin-memo-action/internal/pyjson"
)

// Event is one record of the event log (lessons.events.jsonl):
// {"event", "tick", "ts", ...payload}.
type Event struct{ v pyjson.Value }

// Name returns the event name ("decide", "settle", "tick", ...).
func (e Event) Name() string { return e.v.Field("event").Str() }

// Tick returns the event's tick.
func (e Event) Tick() int { t, _ := e.v.Field("tick").Int(); return t }

// Source returns the settle source ("" when the field is missing).
func (e Event) Source() string { return e.v.Field("source").Str() }

// Delta returns the settle delta.
func (e Event) Delta() (float64, bool) { return e.v.Field("delta").Num() }

// Get returns the payload's value at key, and whether it has one.
func (e Event) Get(key string) (pyjson.Value, bool) { return e.v.Get(key) }

// Silent reports whether a decide event was silent.
func (e Event) Silent() bool {
	x, ok := e.v.Get("silent")
	return ok && x.Kind() == pyjson.KindBool && x.Bool()
}

// NewEvent is the event name at tick, stamped ts (ISO 8601), with payload after those three
// keys.
func NewEvent(name string, tick int, ts string, payload ...pyjson.Member) Event {
	ms := make([]pyjson.Member, 0, 3+len(payload))
	ms = append(ms, pyjson.Pair("event", pyjson.String(name)), pyjson.Pair("tick", pyjson.Int(tick)), pyjson.Pair("ts", pyjson.String(ts)))
	return Event{pyjson.Object(append(ms, payload...)...)}
}

// JSON returns the event as one compact JSON line (without newline).
func (e Event) JSON() string { return string(pyjson.Compact(e.v)) }

// eventRotateBytes and eventKeep are darwin-memo's rotation policy.
const (
	eventRotateBytes = 10 << 20
	eventKeep        = 3
)

// appendEvents appends events to the JSONL log at path, rotating first when
// the live file has reached 10 MiB (live -> .1 -> .2 -> .3, three kept).
func appendEvents(path string, events []Event) error {
	if len(events) == 0 {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && fi.Size() >= eventRotateBytes {
		os.Remove(fmt.Sprintf("%s.%d", path, eventKeep))
		for i := eventKeep - 1; i >= 1; i-- {
			os.Rename(fmt.Sprintf("%s.%d", path, i), fmt.Sprintf("%s.%d", path, i+1))
		}
		if err := os.Rename(path, path+".1"); err != nil {
			return fmt.Errorf("could not rotate %s: %w", path, err)
		}
	}
	var buf bytes.Buffer
	for _, e := range events {
		buf.Write(pyjson.Compact(e.v))
		buf.WriteByte('\n')
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("could not open event log %s: %w", path, err)
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		f.Close()
		return fmt.Errorf("could not append to event log %s: %w", path, err)
	}
	return f.Close()
}

// ReadEvents reads the event log at path and its rotated files, oldest
// first (highest number first, then the live file). Torn or non-JSON lines
// are skipped. A missing log gives no events.
func ReadEvents(path string) ([]Event, error) {
	matches, _ := filepath.Glob(path + ".*")
	type num struct {
		n    int
		path string
	}
	var rotated []num
	for _, mt := range matches {
		n, err := strconv.Atoi(strings.TrimPrefix(mt, path+"."))
		if err == nil && n > 0 {
			rotated = append(rotated, num{n, mt})
		}
	}
	sort.Slice(rotated, func(i, j int) bool { return rotated[i].n > rotated[j].n })
	files := make([]string, 0, len(rotated)+1)
	for _, r := range rotated {
		files = append(files, r.path)
	}
	files = append(files, path)
	var out []Event
	for _, fp := range files {
		f, err := os.Open(fp)
		if err != nil {
			if os.IsNotExist(err) {
				continue
			}
			return nil, fmt.Errorf("could not read event log %s: %w", fp, err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64*1024), 16<<20)
		for sc.Scan() {
			v, err := pyjson.Parse(fp, sc.Bytes())
			if err != nil || v.Kind() != pyjson.KindObject {
				continue
			}
			out = append(out, Event{v})
		}
		f.Close()
	}
	return out, nil
}
