package order

import (
	"testing"

	"github.com/commercekit/commerce"
)

// TestReturnMachine: every operation in every status of a return: the
// status it leads to, or invalid_return_state with {status}.
func TestReturnMachine(t *testing.T) {
	ops := []string{opReceive, opRefund, opReject, opCancel}
	want := map[string][]string{ // status -> what each op leads to ("" refused)
		ReturnRequested: {ReturnReceived, "", ReturnRejected, ReturnCancelled},
		ReturnReceived:  {"", ReturnRefunded, ReturnRejected, ""},
		ReturnRefunded:  {"", "", "", ""},
		ReturnRejected:  {"", "", "", ""},
		ReturnCancelled: {"", "", "", ""},
	}
	for _, status := range ReturnStatuses {
		for i, op := range ops {
			t.Run(status+"/"+op, func(t *testing.T) {
				next, err := nextReturnStatus(&Return{ID: "r", Status: status}, op)
				if want[status][i] != "" {
					if err != nil || next != want[status][i] {
						t.Fatalf("got %q, %v; want %s", next, err, want[status][i])
					}
					return
				}
				ce, ok := err.(*commerce.Error)
				if !ok || ce.Code != commerce.EInvalidReturnState || ce.Data.(map[string]string)["status"] != status {
					t.Fatalf("got %q, %v; want invalid_return_state {status: %s}", next, err, status)
				}
			})
		}
	}
}
