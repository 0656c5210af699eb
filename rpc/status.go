package rpc

import (
	"strings"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/staff"
)

// Status returns the HTTP status of an error code (docs/api.md section 2).
func Status(code string) int {
	switch code {
	case commerce.EInvalidToken, commerce.EInvalidCredentials:
		return 401
	case commerce.EPaymentFailed:
		return 402
	case commerce.EForbidden:
		return 403
	case commerce.EMethodNotAllowed:
		return 405
	case commerce.EDuplicateKey, commerce.EProductNotSaved, commerce.EConcurrentMod, commerce.EIdempotencyKeyInUse,
		commerce.EMediaInUse, staff.ELastOwner:
		return 409
	case commerce.ERequestTooLarge:
		return 413
	case commerce.ETooManyAttempts:
		return 429
	case commerce.EIdempotencyKeyReused:
		return 422
	case commerce.EInternal:
		return 500
	case commerce.EUnavailable:
		return 503
	case commerce.EShippingAddressNotSet, commerce.EShippingAddressNotset, commerce.EVariationDataNotFound:
		return 400
	}
	if strings.HasSuffix(code, "_not_found") {
		return 404
	}
	return 400
}
