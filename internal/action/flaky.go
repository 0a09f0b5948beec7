package action

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/darwin-memo/darwin-memo-action/encode"
	"github.com/darwin-memo/darwin-memo-action/settle"
)

// The flaky-quarantine sidecar steers settlement: a test it says flips is left out of the
// delta. So, like the store tickets are verified against, it is read where no pull request the
// run settles can have written it, never from the base branch's tip (which already holds every
// merged pull request's files): a pull request that breaks two tests and marks them flipping
// in its own flaky.json would otherwise quarantine its own regressions.

// flakyPath is the flaky-quarantine sidecar next to the store (darwin-memo's flaky.json).
func (r *Runner) flakyPath() string { return flakyPathOf(r.Config) }

func flakyPathOf(c Config) string { return path.Join(path.Dir(c.StorePath), "flaky.json") }

// BotFiles names the action's own pull requests (from its branch) and every file they write:
// the store, its rendering and the flaky sidecar.
func BotFiles(c Config) settle.BotPulls {
	paths := []string{c.StorePath, flakyPathOf(c)}
	if c.RenderPath != "" {
		paths = append(paths, c.RenderPath)
	}
	return settle.BotPulls{Branch: c.Branch, Paths: paths}
}

// flakyHistory returns the sidecar the run measures with, reading it the first time: on the open
// bot pull request's branch when the run starts from its store (the bot writes its own copy
// there on every commit, flakyFile), else at the commit the run's oldest pull request was
// merged onto (oldestBase), which no pull request of the run can have changed (they all merged
// after it).
// Malformed content is an empty history, never an error. nil when the run has no pull request.
func (r *Runner) flakyHistory(ctx context.Context, st *state) (*settle.FlakyHistory, error) {
	if st.flaky != nil {
		return st.flaky, nil
	}
	ref := st.flakyRef
	if ref == "" {
		if st.oldest == nil {
			return nil, nil
		}
		var err error
		if ref, err = r.oldestBase(ctx, st); err != nil {
			return nil, err
		}
	}
	doc, _, found, err := r.readFile(ctx, r.flakyPath(), ref)
	if err != nil {
		return nil, err
	}
	st.flaky, st.flakyFound = settle.LoadFlakyHistory(doc), found
	return st.flaky, nil
}

// oldestBase is the commit the run's oldest pull request was merged onto: the one its tickets'
// verification walked to, else walked to now when the rate limit left covers the walk. When it
// does not, or GitHub fails during the walk (the pull request was queued for the same reasons),
// it is the pull request's base.sha, a base-branch commit at or before that one, which no pull
// request of the run wrote either (it may miss flaky observations a later bot merge recorded).
func (r *Runner) oldestBase(ctx context.Context, st *state) (string, error) {
	if st.oldestOnto != "" {
		return st.oldestOnto, nil
	}
	pr := st.oldest
	fallback := pr.GetBase().GetSHA()
	why, err := r.walkBudget(ctx, pr)
	if err != nil {
		return "", err
	}
	if why == "" {
		sha, err := r.baseOf(ctx, pr)
		var nobase *settle.OutcomeError
		switch {
		case err == nil:
			st.oldestOnto = sha
			return sha, nil
		case !errors.As(err, &nobase):
			return "", err
		}
	}
	if fallback == "" {
		return "", fmt.Errorf("reading %s: pull request #%d names no base commit", r.flakyPath(), pr.GetNumber())
	}
	return fallback, nil
}

// flakyFile returns the sidecar to commit on the bot branch, nil when there is none to write.
// The commit is built on the base branch's tip, whose sidecar a pull request may have edited,
// and the bot branch's copy is the one the next run trusts: so the bot writes its own history
// whenever it has one (unchanged bytes cost nothing: the tree gets the same blob), and when it
// has none it writes an empty history over a sidecar the tip holds.
func (r *Runner) flakyFile(ctx context.Context, st *state) ([]byte, error) {
	h, err := r.flakyHistory(ctx, st)
	if err != nil || h == nil {
		return nil, err
	}
	if !st.flakyFound && len(h.Tests) == 0 {
		_, _, onTip, err := r.readFile(ctx, r.flakyPath(), st.baseTip)
		if err != nil || !onTip {
			return nil, err
		}
	}
	fb, err := h.Marshal()
	if err != nil {
		return nil, fmt.Errorf("serialising %s: %w", r.flakyPath(), err)
	}
	return fb, nil
}

// steeringEdits names the files that steer settlement (the store, whose config, lessons and
// pending tickets tickets are settled with, and the flaky sidecar) which pull request n changed,
// as a warning for the bot pull request; "" when it changed none. The bot never reads them from
// a pull request's own changes, but they reach the base branch with its merge, so the people
// who merge the bot pull request should look at them. files is the first page of the pull
// request's files the encoder read (GitHub lists 100 a page): a fuller page says the rest was
// not checked. Only the configured paths are printed, never a path the pull request chose.
// edits says the pull request changed one of them (the run then writes the bot pull request).
func (r *Runner) steeringEdits(n int, files []encode.File) (warning string, edits bool) {
	watched := []string{r.Config.StorePath, r.flakyPath()}
	var hit []string
	for _, f := range files {
		for _, w := range watched {
			if f.Path == w && !slices.Contains(hit, w) {
				hit = append(hit, w)
			}
		}
	}
	switch {
	case len(hit) > 0:
		return fmt.Sprintf("#%d changes %s, which steer settlement: the bot reads them as they stood at each pull request's base, never from its own changes, "+
			"but these edits are now on the base branch; review them", n, strings.Join(hit, " and ")), true
	case len(files) >= maxFilesPage:
		return fmt.Sprintf("#%d changes %d or more files; only the first %d were checked for edits to %s", n, maxFilesPage, maxFilesPage, strings.Join(watched, " and ")), false
	}
	return "", false
}

// maxFilesPage is the size of the page of a pull request's files the encoder reads.
const maxFilesPage = 100
