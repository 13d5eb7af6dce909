package main

import (
	"encoding/xml"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// conformanceFocus selects the node conformance specs, the Conformance specs of sig-node and
// the common volume specs (ConfigMap, Secret, projected, emptyDir, downward API volumes).
const conformanceFocus = `\[NodeConformance\]|\[sig-node\].*\[Conformance\]|\[sig-storage\].*\[Conformance\]`

// conformanceResult is the outcome of the suite's specs, from its JUnit report.
type conformanceResult struct {
	cases []conformanceCase
}

// conformanceCase is one spec: its full text, "passed", "failed" or "skipped", and its time.
type conformanceCase struct {
	name   string
	result string
	time   time.Duration
}

// readJUnit reads the JUnit report of e2e.test (Ginkgo v2's junit_01.xml), keeping the specs
// whose text focus matches (all if nil): the report lists every spec of the suite.
func readJUnit(path string, focus *regexp.Regexp) (*conformanceResult, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseJUnit(b, focus)
}

func parseJUnit(b []byte, focus *regexp.Regexp) (*conformanceResult, error) {
	var doc struct {
		Suites []struct {
			Cases []struct {
				Name    string    `xml:"name,attr"`
				Status  string    `xml:"status,attr"`
				Time    float64   `xml:"time,attr"`
				Failure *struct{} `xml:"failure"`
				Error   *struct{} `xml:"error"`
				Skipped *struct{} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("junit report: %w", err)
	}
	res := &conformanceResult{}
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			name := strings.TrimPrefix(c.Name, "[It] ")
			// The suite's setup and teardown nodes are not specs.
			if strings.HasPrefix(name, "[SynchronizedBeforeSuite]") || strings.HasPrefix(name, "[SynchronizedAfterSuite]") ||
				strings.HasPrefix(name, "[ReportAfterSuite]") || strings.HasPrefix(name, "[BeforeSuite]") || strings.HasPrefix(name, "[AfterSuite]") {
				if c.Failure == nil && c.Error == nil {
					continue
				}
			}
			if focus != nil && !focus.MatchString(name) {
				continue
			}
			r := "passed"
			switch {
			case c.Failure != nil || c.Error != nil || c.Status == "failed" || c.Status == "panicked" || c.Status == "timedout" || c.Status == "interrupted":
				r = "failed"
			case c.Skipped != nil || c.Status == "skipped" || c.Status == "pending":
				r = "skipped"
			}
			res.cases = append(res.cases, conformanceCase{name: name, result: r, time: time.Duration(c.Time * float64(time.Second))})
		}
	}
	return res, nil
}

// counts returns how many specs passed, failed and were skipped.
func (r *conformanceResult) counts() (passed, failed, skipped int) {
	for _, c := range r.cases {
		switch c.result {
		case "passed":
			passed++
		case "failed":
			failed++
		default:
			skipped++
		}
	}
	return
}

// summary is one line: "P passed, F failed of N run (S skipped)".
func (r *conformanceResult) summary() string {
	p, f, s := r.counts()
	return fmt.Sprintf("%d passed, %d failed of %d run (%d skipped)", p, f, p+f, s)
}

// table is the Markdown table of the specs run (not the skipped ones): failed first, then by name.
func (r *conformanceResult) table() string {
	var run []conformanceCase
	for _, c := range r.cases {
		if c.result != "skipped" {
			run = append(run, c)
		}
	}
	sort.Slice(run, func(i, j int) bool {
		if run[i].result != run[j].result {
			return run[i].result == "failed"
		}
		return run[i].name < run[j].name
	})
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n| test | result | time |\n|---|---|---|\n", r.summary())
	for _, c := range run {
		fmt.Fprintf(&b, "| %s | %s | %.1fs |\n", strings.ReplaceAll(c.name, "|", `\|`), c.result, c.time.Seconds())
	}
	return b.String()
}

func TestParseJUnit(t *testing.T) {
	report := `<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="4" failures="1">
  <testsuite name="Kubernetes e2e suite" tests="4">
    <testcase name="[SynchronizedBeforeSuite]" classname="Kubernetes e2e suite" status="passed" time="1.2"></testcase>
    <testcase name="[It] [sig-node] Pods should be submitted and removed [NodeConformance] [Conformance]" classname="Kubernetes e2e suite" status="passed" time="10.5"></testcase>
    <testcase name="[It] [sig-node] Probing container with a|pipe [NodeConformance]" classname="Kubernetes e2e suite" status="failed" time="300"><failure message="timed out" type="failed">x</failure></testcase>
    <testcase name="[It] [sig-network] Services should work [Conformance]" classname="Kubernetes e2e suite" status="skipped" time="0"><skipped message="skipped"></skipped></testcase>
    <testcase name="[It] [sig-node] Pods should be listed [NodeConformance] [Slow]" classname="Kubernetes e2e suite" status="skipped" time="0"><skipped message="skipped"></skipped></testcase>
  </testsuite>
</testsuites>`
	res, err := parseJUnit([]byte(report), regexp.MustCompile(conformanceFocus))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.summary(), "1 passed, 1 failed of 2 run (1 skipped)"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	table := res.table()
	for _, want := range []string{
		"| [sig-node] Probing container with a\\|pipe [NodeConformance] | failed | 300.0s |\n| [sig-node] Pods should be submitted and removed [NodeConformance] [Conformance] | passed | 10.5s |",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	if strings.Contains(table, "Services") || strings.Contains(table, "BeforeSuite") {
		t.Errorf("table lists a skipped spec or a suite node:\n%s", table)
	}
}
