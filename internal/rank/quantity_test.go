package rank

import "testing"

func TestUnstatedQuantity(t *testing.T) {
	for _, c := range []struct {
		query, answer  string
		asks, unstated bool
	}{
		{"which jasmine version runs the unit tests", "npm test runs jasmine in headless Chrome.", true, true},
		{"what php version does ddev use", "PHP 8.3, set in .ddev/config.yaml.", true, false},
		{"How many workers does the queue run?", "Sidekiq runs the imports queue.", true, true},
		{"how long is an sms code valid", "Codes expire after 300 s.", true, false},
		{"what time does the nightly run start", "It is scheduled in CI.", true, true},
		{"which ports are open?", "None.", true, true},
		{"what is the upload size limit", "Set in nginx.conf.", true, true},
		// A quantity word that heads no "what" or "which" question asks nothing.
		{"fix the flaky timeout in the upload test", "Wrap the call in retry().", false, false},
		{"the version check fails on CI", "Run make tidy.", false, false},
		{"which module do I change to port the parser to the new API", "parser/", false, false},
		// Not a quantity: no numeric opening, no word naming a number.
		{"how do I run the integration tests", "make itest", false, false},
		{"who approves prod deploys", "The release channel.", false, false},
		{"how to import the support module", "go get ./support", false, false},
		{"how the long-running job retries", "It backs off.", false, false},
	} {
		if got := AsksQuantity(c.query); got != c.asks {
			t.Errorf("AsksQuantity(%q) = %v, want %v", c.query, got, c.asks)
		}
		if got := UnstatedQuantity(c.query, c.answer); got != c.unstated {
			t.Errorf("UnstatedQuantity(%q, %q) = %v, want %v", c.query, c.answer, got, c.unstated)
		}
	}
}
