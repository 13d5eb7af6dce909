package main

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// The status listener serves /metrics beside /status and /healthz.
func TestStatusListenerServesMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: "container_oom_events_total", Help: "x"})
	c.Add(2)
	reg.MustRegister(c)
	w := newStatusWriter(t.TempDir(), nil)
	h := withMetrics(w, reg)
	for path, want := range map[string]string{"/metrics": "container_oom_events_total 2\n", "/healthz": "ok\n"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		body, _ := io.ReadAll(rec.Body)
		if rec.Code != 200 || !strings.Contains(string(body), want) {
			t.Errorf("GET %s: %d %q, want %q in it", path, rec.Code, body, want)
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/nope", nil))
	if rec.Code != 404 {
		t.Errorf("GET /nope: %d", rec.Code)
	}
}
