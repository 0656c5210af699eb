package app_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
)

// The assembled service's /metrics has the request metrics and the VIEWED
// buffer's dropped-events counter (issue 9 defect 12).
func TestMetricsRegistered(t *testing.T) {
	s := apitest.New(t, testdb.SQLite(t))
	req, _ := http.NewRequest("GET", s.URL+"/event/v1/event.list", nil)
	req.Header.Set("Authorization", "Bearer "+s.Admin)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	res, err = http.Get(s.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"commerce_events_dropped_total 0", `commerce_requests_total{operation="event.list",service="event",status="200",version="v1"} 1`, "go_goroutines "} {
		if !strings.Contains(string(b), want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}
