package lessons

import (
	"slices"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/lexrank"
)

func TestAttributeTarget(t *testing.T) {
	s := New("x", Options{})
	v3Background(t, s)
	mustAdd(t, s, "What targetSdk does the app build against?", "The app targets API 35 (targetSdk = 35); the owner is team Atlas. Run the job with retries.")
	li := s.ensureLexIndex()
	st := func(ws ...string) []string {
		var out []string
		for _, w := range ws {
			out = append(out, lexrank.Stem(w))
		}
		return out
	}
	for q, want := range map[string]attrTarget{
		"Which Redis version runs the sessions cluster?": {stems: st("version"), numeric: true},
		"What license is kestrel-hs released under?":     {stems: st("license")},
		"Which port does flagd listen on?":               {stems: st("port")},
		"Which keystore signs the huawei build?":         {stems: st("keystore")},
		"What is the minSdk of the app?":                 {stems: st("min", "sdk")},
		"Which targetSdk does the app use?":              {stems: st("target", "sdk")},
		"What is the interrupt priority of UART1?":       {stems: st("priority")},
		"Who owns the nightly DAG?":                      {stems: []string{"own"}, prefix: true},
		"who reviewed the fix for INC-231?":              {stems: []string{"review"}, prefix: true},
		"What caused the credit spike?":                  {},
		"what took auth-service down on 2026-05-19?":     {},
		"What retry policy should the tasks have?":       {},
		"What's the build command for kestrel-hs?":       {},
		"vitest or jest for the web frontend tests?":     {},
		"who's on call for notifications-service?":       {},
		"API url env var for the mobile app":             {}, // an abbreviation (var) may be how a known thing was put
		"How do I rotate the password?":                  {},
		"Which file configures the linter?":              {},
		"Which keystore is used for the huawei flavor?":  {stems: st("keystore")},
		"the location of the terraform state":            {},
	} {
		got := li.attributeTarget(q)
		if !slices.Equal(got.stems, want.stems) || got.prefix != want.prefix || got.numeric != want.numeric {
			t.Errorf("attributeTarget(%q) = %+v, want %+v", q, got, want)
		}
	}
}

func TestAttrTargetHeldBy(t *testing.T) {
	all := lexrank.Stems("The app targets API 35; team Atlas is the owner.")
	if !(attrTarget{stems: []string{"own"}, prefix: true}).heldBy(all, "") {
		t.Error("owner does not hold owns")
	}
	if (attrTarget{stems: lexrank.Stems("license")}).heldBy(all, "") {
		t.Error("license held")
	}
	if !(attrTarget{stems: lexrank.Stems("version"), numeric: true}).heldBy(nil, "CI moved to go1.22") {
		t.Error("go1.22 gives no version")
	}
	if (attrTarget{stems: lexrank.Stems("version"), numeric: true}).heldBy(nil, "fixed in PR #4160 by volatile-lru") {
		t.Error("a PR number gives a version")
	}
	if !(attrTarget{stems: lexrank.Stems("address"), numeric: true}).heldBy(nil, "ORIGIN = 0x27000") {
		t.Error("a hex literal gives no address")
	}
}

func TestCamelNames(t *testing.T) {
	if got := camelNames("How are shaders compiled for the DirectX 12 backend in Ember?"); !slices.Equal(got, []string{"directx"}) {
		t.Errorf("camelNames = %v", got)
	}
	s := New("x", Options{})
	v3Background(t, s)
	mustAdd(t, s, "Which Postgres does staging run?", "Postgres 15 behind PgBouncer; shaders go through direct compilation.")
	li := s.ensureLexIndex()
	for q, want := range map[string]bool{
		"How are shaders compiled for the DirectX backend?": true,
		"Which PostgreSQL runs behind Pg-Bouncer?":          true, // postgre is no part of "postgres"
		"Does staging use PgBouncer?":                       false,
	} {
		var raw []lexrank.Hit
		for d := range li.docs {
			raw = append(raw, lexrank.Hit{Doc: d})
		}
		if got := li.unknownName(q, raw); got != want {
			t.Errorf("unknownName(%q) = %v", q, got)
		}
	}
	if got := camelNames("what is the minSdk of tallyapp, and is CI on GitHub-hosted runners?"); got != nil {
		t.Errorf("camelNames = %v", got)
	}
}

func TestAsksCost(t *testing.T) {
	for q, want := range map[string]bool{
		"What does the billing RDS database cost per month?": true,
		"how do I reduce CI cost":                            false,
		"Which cost center pays for staging?":                false,
		"What is the cost of the staging cluster?":           true,
	} {
		if asksCost(q) != want {
			t.Errorf("asksCost(%q) = %v", q, !want)
		}
	}
}

// A query whose lower-casing changes length (İ, U+0130, lower-cases to
// two runes) is cut at " for " or " of " by its own offsets: v3's attribute
// rules neither panic nor read a shifted word.
func TestAttributeCutWithLengthChangingLetters(t *testing.T) {
	for _, q := range []string{
		"İİİİİİİİİİİİ memory limit for the orders-api pods",
		"what is the İSTANBUL region's memory limit of the orders-api pods",
		"İ for",
	} {
		if _, cut := forOfCut(q); cut >= 0 && !strings.HasPrefix(q[cut:], " for ") && !strings.HasPrefix(q[cut:], " of ") {
			t.Errorf("%q: cut %d is not at \" for \" or \" of \"", q, cut)
		}
		s := New("attr.json", Options{Retrieval: RetrievalV3})
		if _, err := s.Add(NewLesson{Question: "What is the memory limit for the orders-api pods?", Answer: "512Mi since the 2026-03 resize"}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Decide(q, DecideOptions{}); err != nil {
			t.Fatalf("%q: %v", q, err)
		}
	}
	if got := lastWordBefore("the MEMORY limit for x"); got != "limit" {
		t.Errorf("lastWordBefore = %q, want limit", got)
	}
}
