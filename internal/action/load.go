package action

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/darwin-memo/darwin-memo-action/internal/botpr"
	"github.com/darwin-memo/darwin-memo-action/internal/storedoc"
	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// storeOptions are the options every store is parsed or created with.
// Options.Config is only the config of a store the action creates
// (lessons.New on a repository without a store): it starts with
// lessons.RecommendedConfig. lessons.ParseWith never applies it, so an
// existing store keeps its persisted ledger.config, and one without a
// ledger.config (every store darwin-memo wrote) gets darwin-memo's defaults.
func (r *Runner) storeOptions() lessons.Options {
	newStore := lessons.RecommendedConfig()
	return lessons.Options{Now: r.Now, Config: &newStore}
}

// parseStore parses a store document; nil data gives a new empty store.
func (r *Runner) parseStore(where string, data []byte, opts lessons.Options) (*lessons.Store, error) {
	if data == nil {
		return lessons.New(r.Config.StorePath, opts), nil
	}
	s, err := lessons.ParseWith(r.Config.StorePath, data, opts)
	if err != nil {
		return nil, fmt.Errorf("the lesson store on %s is malformed, so nothing was written; fix it there (for example with `darwin-memo doctor --store %s`): %w", where, r.Config.StorePath, err)
	}
	return s, nil
}

// load reads the base branch's store, the open bot pull request and its store, and merges
// them into the store the run works on. It only reads.
func (r *Runner) load(ctx context.Context, trig Trigger) (*state, error) {
	st := &state{base: r.Config.Base}
	if st.base == "" {
		st.base = trig.DefaultBranch
	}
	if st.base == "" {
		repo, _, err := r.Client.Repositories.Get(ctx, r.Owner, r.Repo)
		if err != nil {
			return nil, botpr.Explain(fmt.Errorf("reading the repository's default branch: %w", err), "contents")
		}
		st.base = repo.GetDefaultBranch()
	}
	if st.base == r.Config.Branch {
		return nil, fmt.Errorf("input branch %q is the base branch; give the bot a branch of its own", r.Config.Branch)
	}
	ref, _, err := r.Client.Git.GetRef(ctx, r.Owner, r.Repo, "heads/"+st.base)
	if err != nil {
		return nil, botpr.Explain(fmt.Errorf("reading base branch %s: %w", st.base, err), "contents")
	}
	st.baseTip = ref.GetObject().GetSHA()
	if why := r.startBudget(); why != "" {
		return nil, budgetSpent(why)
	}
	doc, sha, found, err := r.readFile(ctx, r.Config.StorePath, st.baseTip)
	if err != nil {
		return nil, err
	}
	if found {
		st.mainDoc, st.mainFound = doc, true
		r.mainBlob.sha, r.mainBlob.doc = sha, doc
	}
	if st.open, err = r.repoAPI().FindOpen(ctx, r.Config.Branch, st.base); err != nil {
		return nil, err
	}
	// The base branch's store is loaded once the bot branch's is merged with it (below): the
	// run never holds the two loaded stores and the documents the merge reads at once.
	// It is read, compared and consulted, never written or settled: its history notes are
	// rendered only if something reads them (lessons.Options.LazyHistory).
	loadMain := func() error {
		opts := r.storeOptions()
		opts.LazyHistory = true
		if st.mainStore, err = r.parseStore("the base branch "+st.base, st.mainDoc, opts); err != nil {
			return err
		}
		if st.mainRec, err = RecordOf(st.mainStore); err != nil {
			return fmt.Errorf("the lesson store on the base branch %s: %w", st.base, err)
		}
		return nil
	}
	work := st.mainDoc // the store the run starts from, unless the bot branch's is merged
	// discarded is the store of a bot branch whose work this run cannot start from (its
	// store does not merge with the base branch's, or a person closed its pull request): the
	// pull requests its record holds are settled again from the base branch's store below.
	var discarded []byte
	var discardedWhere string
	fromBot := false // the run starts from the open bot pull request's store
	if st.open == nil {
		if err := loadMain(); err != nil {
			return nil, err
		}
	}
	if st.open != nil {
		merged, warn, ours, err := r.mergeBotBranch(ctx, st)
		if err != nil {
			return nil, err
		}
		if err := loadMain(); err != nil {
			return nil, err
		}
		switch {
		case warn != "":
			st.warnings = append(st.warnings, warn)
			discarded, discardedWhere = ours, fmt.Sprintf("the open bot pull request #%d", st.open.GetNumber())
		case merged != nil:
			st.store, fromBot = merged, true
		default:
			work, fromBot = ours, !bytes.Equal(ours, st.mainDoc)
		}
	} else if discarded, err = r.closedBotBranch(ctx); err != nil {
		return nil, err
	} else if discarded != nil {
		discardedWhere = "the branch " + r.Config.Branch + " (its pull request was closed without merging)"
	}
	if st.store == nil { // not the merged store mergeBotBranch loaded
		if st.store, err = r.parseStore("the bot branch "+r.Config.Branch, work, r.storeOptions()); err != nil {
			return nil, err
		}
	}
	if st.rec, err = RecordOf(st.store); err != nil {
		return nil, err
	}
	if err := r.checkHeld(ctx, st); err != nil {
		return nil, err
	}
	if discarded != nil {
		if err := r.carryOver(st, discarded, discardedWhere); err != nil {
			return nil, err
		}
	}
	// The flaky-quarantine sidecar steers settlement, so it is read where no pull request this
	// run settles can have written it (flakyHistory): on the open bot pull request's branch,
	// which holds the bot's own copy, or else at the base of the run's oldest pull request.
	if fromBot {
		st.flakyRef = st.open.GetHead().GetSHA()
	}
	// From here on the base branch's store is its loaded store (and its blob sha): its bytes,
	// as large as the store, are not held for the rest of the run.
	st.mainDoc, r.mainBlob.doc = nil, nil
	return st, nil
}

// mergeBotBranch three-way merges the store on the open bot pull request's branch with the
// store on the base branch and loads the result (storedoc.Merge, lessons.ParseWith). A bot branch whose store
// cannot be merged is reported as a warning and returned as ours (the run then starts from the
// base branch and settles the pull requests ours records again; see carryOver). merged is nil
// and warn empty when the branch is built on the current base: ours is used as it is. ours is
// nil when the stores were merged.
func (r *Runner) mergeBotBranch(ctx context.Context, st *state) (merged *lessons.Store, warn string, ours []byte, err error) {
	head := st.open.GetHead().GetSHA()
	ours, _, found, err := r.readFile(ctx, r.Config.StorePath, head)
	if err != nil {
		return nil, "", nil, err
	}
	if !found {
		return nil, fmt.Sprintf("the open bot pull request #%d has no %s; it is rebuilt from the base branch", st.open.GetNumber(), r.Config.StorePath), nil, nil
	}
	c, _, err := r.Client.Git.GetCommit(ctx, r.Owner, r.Repo, head)
	if err != nil {
		return nil, "", nil, botpr.Explain(fmt.Errorf("reading the bot branch's commit %s: %w", short(head), err), "contents")
	}
	var parent string
	if len(c.Parents) > 0 {
		parent = c.Parents[0].GetSHA()
	}
	if parent == st.baseTip {
		st.botRec = readBotRecord(ours)
		return nil, "", ours, nil // the branch is built on the current base: nothing to merge
	}
	var anc []byte
	if parent != "" {
		if anc, _, _, err = r.readFile(ctx, r.Config.StorePath, parent); err != nil {
			return nil, "", nil, err
		}
	}
	if anc != nil && st.mainDoc != nil && bytes.Equal(anc, st.mainDoc) {
		// The base branch moved but its store did not (the usual case: pull requests merged
		// without touching it): the merge would give ours, so ours is used as it is.
		r.Logf("the base branch's store is unchanged since the bot branch was built; using the bot branch's store")
		st.botRec = readBotRecord(ours)
		return nil, "", ours, nil
	}
	// Lessons added by hand without an "id" are matched by the content-derived id every load
	// gives them (storedoc.Merge does it on all three sides). The bot branch's document is
	// not held past the merge (it is as large as the store, and the merged store is loaded
	// while the base branch's document is still held): the rare failure reads it again.
	return r.mergeStores(ctx, st, head, anc, ours)
}

// mergeStores is the three-way merge of mergeBotBranch. It takes the documents as arguments
// and does not use ours after the merge, so only the merge holds them.
// The bot branch's record is the one the merge reads (mergeRecords decodes ours), so ours is
// not scanned for it a second time.
func (r *Runner) mergeStores(ctx context.Context, st *state, head string, anc, ours []byte) (*lessons.Store, string, []byte, error) {
	var botRec []byte // ours' record as the merge read it, copied (not a slice of ours, which is not held past the merge); nil when ours has none
	keepOurs := func(base, ours, theirs []byte) ([]byte, error) {
		botRec = bytes.Clone(ours)
		return mergeRecords(base, ours, theirs)
	}
	var merged *lessons.Store
	doc, err := storedoc.Merge(anc, ours, orEmptyDoc(st.mainDoc), map[string]storedoc.KeyMerger{RecordKey: keepOurs})
	if err == nil {
		if merged, err = lessons.ParseWith(r.Config.StorePath, doc, r.storeOptions()); err != nil {
			err = fmt.Errorf("the merged store does not load: %w", err)
		}
	}
	if err != nil {
		again, _, _, rerr := r.readFile(ctx, r.Config.StorePath, head)
		if rerr != nil {
			return nil, "", nil, rerr
		}
		st.botRec = readBotRecord(again)
		return nil, fmt.Sprintf("could not merge the bot branch's store with the base branch's (%v); it is rebuilt from the base branch and the pull requests it processed are settled again", err), again, nil
	}
	if rec, err := decodeRecord(botRec); err == nil {
		st.botRec = &rec
	}
	r.Logf("merged the bot branch's store with %s (base %s)", st.base, short(st.baseTip))
	return merged, "", nil, nil
}

// closedBotBranch returns the store on the bot branch when no bot pull request is open but
// the branch still exists (a person closed the pull request without merging it; a merged or
// emptied one leaves nothing the base branch lacks). nil when there is no such branch or store.
func (r *Runner) closedBotBranch(ctx context.Context) ([]byte, error) {
	ref, resp, err := r.Client.Git.GetRef(ctx, r.Owner, r.Repo, "heads/"+r.Config.Branch)
	if err != nil {
		if resp != nil && resp.StatusCode == http.StatusNotFound {
			return nil, nil
		}
		return nil, botpr.Explain(fmt.Errorf("reading the bot branch %s: %w", r.Config.Branch, err), "contents")
	}
	doc, _, _, err := r.readFile(ctx, r.Config.StorePath, ref.GetObject().GetSHA())
	return doc, err
}

// carryOver keeps the settlements of a bot branch the run cannot start from: every pull request
// its record holds as processed, and the base branch's record does not, is settled again in
// this run from the base branch's store, with the delta the branch recorded for it (CI is not
// measured again: its results may have expired) and only the tickets it settled then. Queued
// pull requests stay queued. A branch store whose record cannot be read stops the run when
// its pull request is open (its settlements would be lost); the branch of a closed pull
// request is only warned about.
func (r *Runner) carryOver(st *state, doc []byte, where string) error {
	rec, err := ReadRecord(doc)
	if err != nil {
		if st.open != nil {
			return fmt.Errorf("the store on %s cannot be read (%v), so the settlements it holds cannot be carried over and nothing was written; "+
				"fix %s on the branch %s, or close the pull request and delete the branch to discard its work", where, err, r.Config.StorePath, r.Config.Branch)
		}
		st.warnings = append(st.warnings, fmt.Sprintf("the store on %s cannot be read (%v); its work is not carried over (delete the branch to silence this)", where, err))
		return nil
	}
	// A closed pull request's branch whose work this run redoes is deleted if the run then
	// has nothing the base branch lacks (see publish), so it is not redone on every run.
	st.closedBranch = st.open == nil
	var again []string
	for _, p := range rec.Processed {
		if st.rec.has(p.PR) {
			continue
		}
		if st.reapply == nil {
			st.reapply = map[int]Processed{}
		}
		st.reapply[p.PR] = p
		again = append(again, fmt.Sprintf("#%d", p.PR))
	}
	for _, q := range rec.Queued {
		if !st.rec.has(q) {
			st.rec.queue(q)
			// The tickets of its first reading stay held: a later reading may see an edited body.
			if lines, ok := rec.Held[itoa(q)]; ok {
				if _, held := st.rec.Held[itoa(q)]; !held {
					st.rec.keep(itoa(q), lines, rec.HeldBody[itoa(q)])
				}
			}
		}
	}
	if len(again) > 0 {
		sort.Strings(again)
		r.Logf("%s held %d pull request(s) the base branch has not processed; settling them again: %s", where, len(again), strings.Join(again, " "))
	}
	return nil
}

func orEmptyDoc(b []byte) []byte {
	if b == nil {
		return []byte(`{"config":{"max_energy":5.0,"upkeep":0.05},"entries":[],"graveyard":[]}`)
	}
	return b
}

// readBotRecord is the record of the bot branch's store document, nil when it cannot be read.
func readBotRecord(doc []byte) *Record {
	rec, err := ReadRecord(doc)
	if err != nil {
		return nil
	}
	return &rec
}
