package lessons

import "testing"

func v3Decide(t *testing.T, s *Store, q string, r Retrieval) *Entry {
	t.Helper()
	d, err := s.Decide(q, DecideOptions{RetrieveOptions: RetrieveOptions{Retrieval: r}})
	if err != nil {
		t.Fatal(err)
	}
	if d.Silent {
		return nil
	}
	return s.byID[d.Decider]
}

func v3Background(t *testing.T, s *Store) {
	for _, l := range [][2]string{
		{"How do I regenerate the protobuf stubs?", "Run buf generate from proto/."},
		{"How do I update Jest snapshots?", "Run pnpm test -- -u and review the .snap diff."},
		{"What do I do when the Terraform state lock is stuck?", "terraform force-unlock LOCK_ID after checking nobody applies."},
		{"How do I add a new Prometheus alert?", "Add a rule to monitoring/alerts and run promtool check rules."},
		{"Do commits need to be signed off?", "Yes, git commit -s; the DCO check requires it."},
		{"How big may a pull request be?", "Under 400 changed lines, excluding generated files."},
	} {
		mustAdd(t, s, l[0], l[1])
	}
}

// A newer lesson that rejects what an older one says decides under v3, even
// when the query names the old fact; v2 keeps its old answer; a newer
// lesson measured to cost tests does not win by novelty.
func TestV3SupersessionByMention(t *testing.T) {
	s := New("x", Options{})
	v3Background(t, s)
	old := mustAdd(t, s, "Which logger should Go code use?", "logrus: log := logrus.WithFields(logrus.Fields{...}), JSON formatter in production.")
	upd := mustAdd(t, s, "Is logrus still allowed?", "No, use log/slog (slog.With for fields); depguard bans github.com/sirupsen/logrus since pr#2011.")
	const q = "ok to use logrus.WithFields here?"
	if got := v3Decide(t, s, q, RetrievalV3); got != upd {
		t.Fatalf("v3 decided %v, want the newer lesson", got)
	}
	if got := v3Decide(t, s, q, RetrievalV2); got != old {
		t.Fatalf("v2 decided %v, want its old answer (v2 tickets keep verifying)", got)
	}
	s.Settle(pend(s, upd.ID), -1, SettleOptions{})
	if got := v3Decide(t, s, q, RetrievalV3); got != old {
		t.Fatalf("v3 decided %v after the newer lesson cost tests, want the older", got)
	}
	// As decide and query load it (consult-only, no index) and as the action
	// verifies at a base: the measurement is read from the history notes too.
	data, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	consulted, err := ParseWith("x", data, Options{ConsultOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	d, err := consulted.Decide(q, DecideOptions{RetrieveOptions: RetrieveOptions{Retrieval: RetrievalV3, Once: true}})
	if err != nil {
		t.Fatal(err)
	}
	if d.Decider != old.ID {
		t.Fatalf("consult-only, once: v3 decided %q after the newer lesson cost tests, want the older %q", d.Decider, old.ID)
	}
}

// Query-side v3: a date in words meets an ISO date, an abbreviation meets
// its long form, and a plain word no lesson holds does not silence an
// answerable question; an unknown name still does.
func TestV3QueryWords(t *testing.T) {
	s := New("x", Options{})
	v3Background(t, s)
	apr := mustAdd(t, s, "What caused the 2026-04-12 outage?", "The ingress TLS certificate expired after the ClusterIssuer was renamed.")
	mustAdd(t, s, "What caused the 2026-05-19 outage?", "auth-service exhausted Postgres connections after scaling to 12 replicas.")
	e2e := mustAdd(t, s, "How do e2e tests run?", "pnpm --filter web exec playwright test with the dev server up.")
	for q, want := range map[string]*Entry{
		"root cause of the April 12 outage":  apr,
		"how do I run the end-to-end suite?": e2e,
	} {
		if got := v3Decide(t, s, q, RetrievalV3); got != want {
			t.Errorf("%q: decided %v, want %s", q, got, want.ID)
		}
	}
	for _, q := range []string{"What caused the Falcon outage?", "What caused the 2026-06-03 outage?"} {
		if got := v3Decide(t, s, q, RetrievalV3); got != nil {
			t.Errorf("%q answered by %s", q, got.Question)
		}
	}
}

// Two questions about different aspects of one thing (its tests, its
// deployment) are not one question: the newer does not replace the older.
func TestV3AspectsAreNotUpdates(t *testing.T) {
	s := New("x", Options{})
	v3Background(t, s)
	mustAdd(t, s, "How do I run the tests of services/api?", "cd services/api && go test ./...")
	webTest := mustAdd(t, s, "How do I run the tests of apps/web?", "pnpm --filter web test (Vitest).")
	mustAdd(t, s, "How is services/api deployed?", "Argo CD syncs deploy/api/overlays/prod.")
	mustAdd(t, s, "How is apps/web deployed?", "Vercel: a push to main promotes to production.")
	if got := v3Decide(t, s, "vitest command for the web app", RetrievalV3); got != webTest {
		t.Errorf("decided %v, want the apps/web tests lesson", got)
	}
}

// An unknown fact about a known thing: the attribute asked for, or a
// quantity, that no matching lesson gives, abstains under v3.
func TestV3UnknownAttribute(t *testing.T) {
	s := New("x", Options{})
	v3Background(t, s)
	mustAdd(t, s, "What Redis timeout does payments-api use?", "REDIS_TIMEOUT=250ms in services/payments-api/config.yaml.")
	mustAdd(t, s, "How is services/api deployed?", "Argo CD syncs deploy/api/overlays/prod after the image tag bump PR.")
	mustAdd(t, s, "What is the memory limit of the worker pods?", "2Gi, set in deploy/worker/values.yaml.")
	limit := mustAdd(t, s, "What is the CI test job timeout?", "30 minutes since the integration suite moved into the test job.")
	for _, q := range []string{
		"memory limit for the payments-api pods",
		"How often does Argo CD sync services/api?",
	} {
		if got := v3Decide(t, s, q, RetrievalV3); got != nil && got.Question != "What is the memory limit of the worker pods?" {
			t.Errorf("%q answered by %q", q, got.Question)
		}
	}
	if got := v3Decide(t, s, "How often does Argo CD sync services/api?", RetrievalV3); got != nil {
		t.Errorf("quantity question answered by %q", got.Question)
	}
	if got := v3Decide(t, s, "how many minutes can the CI test job run?", RetrievalV3); got != limit {
		t.Errorf("quantity question with a quantity answer: decided %v", got)
	}
}

func TestStatesQuantity(t *testing.T) {
	for text, want := range map[string]bool{
		"30 minutes":                         true,
		"REDIS_TIMEOUT=250ms":                true,
		"raised to 75%.":                     true,
		"Two approvals":                      true,
		"ClickHouse, through the v2 driver.": false,
		"CI moved to go1.22 in pr#812":       false,
		"Argo CD syncs deploy/api":           false,
	} {
		if got := statesQuantity(text); got != want {
			t.Errorf("statesQuantity(%q) = %v", text, got)
		}
	}
}

func TestAttributeHead(t *testing.T) {
	s := New("x", Options{})
	v3Background(t, s)
	mustAdd(t, s, "What is the memory limit of the worker pods?", "2Gi; the owner of the chart is team Atlas; check the support matrix.")
	li := s.ensureLexIndex()
	for q, want := range map[string]string{
		"memory limit for the orders-api pods":           "limit",
		"Who is the owner of the billing database?":      "owner",
		"how do I check for leaked secrets":              "",
		"add support for arm64":                          "",
		"How do I get access to the production cluster?": "",
		"In case of failure, restart the pods and then check the logs of the worker, the queue and the scheduler": "",
	} {
		if got := li.attributeHead(q); got != want {
			t.Errorf("attributeHead(%q) = %q, want %q", q, got, want)
		}
	}
}

func TestAttributeHeadMeta(t *testing.T) {
	s := New("x", Options{})
	v3Background(t, s)
	mustAdd(t, s, "Why does the retry flag exist?", "Its purpose is to rerun flaky tests once.")
	if got := s.ensureLexIndex().attributeHead("What is the purpose of the retry flag?"); got != "" {
		t.Errorf("meta head %q", got)
	}
}
