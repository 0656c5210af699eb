package audit

import "github.com/commercekit/commerce"

// ListInput is the argument of audit.list.
type ListInput struct {
	// Actor keeps the entries of this actor (a staff email, a token's sub or a client id).
	Actor string `json:"actor"`
	// Target keeps the entries of this target: an id, or kind:id (product:p1), or kind: (product:).
	Target string `json:"target"`
	// Action keeps the entries of this operation or page action (product.update).
	Action string `json:"action"`
	// From keeps the entries made at or after this time (RFC 3339).
	From *string `json:"from"`
	// To keeps the entries made before this time (RFC 3339).
	To *string `json:"to"`
	commerce.PageArgs
}
