package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// Curating the lessons: add, tick, forget, pin, unpin and import.

// multi is a repeatable string flag.
type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

func runAdd(ctx context.Context, sio *IO, args []string) error {
	fs := newFlags(sio, "add", "add [--store PATH] [--kind K] [--source LABEL]... [--supersedes ID]... QUESTION ANSWER")
	store := writeFlags(fs)
	kind := fs.String("kind", "explicit", "lesson kind: explicit, inferred, entity, cross_doc, experience, consolidated")
	var sources multi
	fs.Var(&sources, "source", "provenance label, repeatable (e.g. pr#123, path:src/x.go)")
	var supersedes multi
	fs.Var(&supersedes, "supersedes", "id of a living lesson this one replaces, repeatable: it is then listed as superseded and never decides (recorded as the source label supersedes:ID)")
	ts := fs.String("recorded-ts", "", "when the lesson was recorded (UTC ISO-8601, default now)")
	q := fs.String("question", "", "the question (instead of the first argument)")
	a := fs.String("answer", "", "the answer (instead of the second argument)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if *q == "" && len(pos) > 0 {
		*q, pos = pos[0], pos[1:]
	}
	if *a == "" && len(pos) > 0 {
		*a, pos = pos[0], pos[1:]
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q; quote the question and the answer", pos[0])
	}
	if strings.TrimSpace(*q) == "" || strings.TrimSpace(*a) == "" {
		return usagef("need a QUESTION and an ANSWER, e.g. darwin-memo add \"How do I run the tests?\" \"make test; it needs docker\"")
	}
	lesson := lessons.NewLesson{Question: *q, Answer: *a, Kind: lessons.Kind(*kind), Sources: sources, RecordedTS: *ts}
	if err := lesson.Validate(); err != nil { // before touching the disk
		return usagef("%v", err)
	}
	return mutate(ctx, sio, store, mayCreate, func(s *lessons.Store) error {
		for _, id := range supersedes {
			if _, ok := s.Entry(id); !ok {
				return usagef("--supersedes %q: no living lesson has that id (see darwin-memo list)", id)
			}
			if l := lessons.SupersedesPrefix + id; !slices.Contains(lesson.Sources, l) {
				lesson.Sources = append(lesson.Sources, l)
			}
		}
		e, err := s.Add(lesson)
		if err != nil {
			return usagef("%v", err)
		}
		fmt.Fprintln(sio.Stdout, e.ID)
		return nil
	})
}

func runTick(ctx context.Context, sio *IO, args []string) error {
	fs := newFlags(sio, "tick", "tick [--store PATH] [--expire-after N] [--count N]")
	store := writeFlags(fs)
	expire := fs.Int("expire-after", lessons.DefaultExpire, "close pending tickets older than N ticks at delta 0 (negative: never)")
	count := fs.Int("count", 1, "number of ticks to run")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if *count < 1 {
		return usagef("--count must be at least 1")
	}
	if *expire == 0 {
		return usagef("--expire-after 0 would expire every ticket at once; use a positive number, or -1 to disable expiry")
	}
	var ticks []lessons.TickStats
	err := mutate(ctx, sio, store, mustExist, func(s *lessons.Store) error {
		if err := checkFinite(s); err != nil {
			return err
		}
		for i := 0; i < *count; i++ {
			ticks = append(ticks, s.Tick(lessons.TickOptions{ExpireAfter: *expire}))
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, st := range ticks {
		if err := writeJSON(sio, st); err != nil {
			return err
		}
	}
	return nil
}

func idCommand(name string, do func(s *lessons.Store, id string) error) func(context.Context, *IO, []string) error {
	return func(ctx context.Context, sio *IO, args []string) error {
		fs := newFlags(sio, name, name+" [--store PATH] ID")
		store := writeFlags(fs)
		pos, err := parseFlags(fs, args)
		if err != nil {
			return err
		}
		if len(pos) != 1 {
			return usagef("need one entry ID (see darwin-memo top)")
		}
		return mutate(ctx, sio, store, mustExist, func(s *lessons.Store) error { return do(s, pos[0]) })
	}
}

var (
	runForget = idCommand("forget", func(s *lessons.Store, id string) error {
		switch r := s.Forget(id); r {
		case lessons.ForgetBuried:
			return nil
		case lessons.ForgetPinned:
			return fmt.Errorf("%s is pinned; unpin it first (darwin-memo unpin %s)", id, id)
		case lessons.ForgetEscrowed:
			return fmt.Errorf("%s is named by a pending ticket; settle or abandon that ticket first", id)
		default:
			return fmt.Errorf("%s is not a living lesson (see darwin-memo top, or darwin-memo why %s)", id, id)
		}
	})
	runPin = idCommand("pin", func(s *lessons.Store, id string) error {
		if !s.Pin(id) {
			return fmt.Errorf("%s is not a living lesson (see darwin-memo top)", id)
		}
		return nil
	})
	runUnpin = idCommand("unpin", func(s *lessons.Store, id string) error {
		if !s.Unpin(id) {
			return fmt.Errorf("%s is not a living lesson (see darwin-memo top)", id)
		}
		return nil
	})
)

func runImport(ctx context.Context, sio *IO, args []string) error {
	fs := newFlags(sio, "import", "import [--store PATH] [--probation N] [--label TEXT] SOURCE_STORE")
	store := writeFlags(fs)
	probation := fs.Int("probation", lessons.DefaultProbation, "positive settlements an import must ride along on before it may decide")
	label := fs.String("label", "", "imported_from label (default: SOURCE_STORE)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("need the SOURCE_STORE path to import from")
	}
	from, err := loadStore(ctx, sio, pos[0])
	if err != nil {
		return err
	}
	return mutate(ctx, sio, store, mayCreate, func(s *lessons.Store) error {
		lbl := *label
		if lbl == "" {
			lbl = pos[0]
		}
		ids := s.Import(from, lessons.ImportOptions{Label: lbl, Probation: probation})
		fmt.Fprintf(sio.Stdout, "imported %d lessons from %s on probation %d\n", len(ids), pos[0], max(0, *probation))
		return nil
	})
}
