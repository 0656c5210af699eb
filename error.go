// Package commerce holds what every area of the service shares: the error
// type with the interface's error codes, and the caller's identity carried in
// a context.
package commerce

import (
	"errors"
	"fmt"
)

// Error codes of docs/api.md, spelled exactly as the interface
// spells them (typos included: clients match on these strings).
const (
	EValidation        = "validation_error"
	EInvalidToken      = "invalid_token"
	EForbidden         = "forbidden"
	EOperationNotFound = "operation_not_found"
	EMethodNotAllowed  = "method_not_allowed"
	ERequestTooLarge   = "request_too_large"
	EInternal          = "internal_error"
	EUnavailable       = "unavailable"
	EDuplicateKey      = "duplicate_key"
	EConcurrentMod     = "concurrent_modification"

	// Catalog.
	EMaxCategoriesPerProduct       = "max_categories_per_product_reached"
	ECategoryNotFound              = "category_not_found"
	ECategoryNotEmpty              = "category_not_empty"
	EParentCategoryNotFound        = "parent_category_not_found"
	EMissingClassification         = "missing_classification"
	EEmptyClassificationValue      = "empty_classification_value"
	EClassificationValueNotBoolean = "classification_value_not_a_boolean"
	EClassificationValueNotNumber  = "classification_value_not_a_number"
	EInconsistentBaseVariants      = "inconsistent_base_variants_data"
	EInconsistentBaseVariations    = "inconsistent_base_variations_data"  // product.create
	EInconsistentBaseVariantions   = "inconsistent_base_variantions_data" // product.update (sic)
	EBaseProductNotFound           = "base_product_not_found"
	EVariationDataNotFound         = "variation_data_not_found"
	ENoModifiersFound              = "no_modifiers_found"
	EVariantNotFound               = "variant_not_found"
	EProductNotFound               = "product_not_found"
	EProductNotSaved               = "product_not_saved"
	EPriceInvalid                  = "price_invalid"
	EPriceCurrencyInvalid          = "price_currency_invalid"
	EPriceCountryInvalid           = "price_country_invalid"
	EPriceValidDates               = "price_valid_dates"

	// Promotions, taxes, stock, shipping, events.
	EPromotionNotFound = "promotion_not_found"
	ETaxNotFound       = "tax_not_found"
	EStockNotFound     = "stock_not_found"
	ENotEnoughStock    = "not_enough_stock"
	EShippingNotFound  = "shipping_not_found"

	// Carts.
	ECartNotFound          = "cart_not_found"
	ECartNotActive         = "cart_not_active"
	EItemNotFound          = "item_not_found"
	EMaxQuantityPerProduct = "max_quantity_per_product_exceeded"
	EMaxNumberOfEntries    = "max_number_of_entries_exceeded"
	EProductDiscontinued   = "product_discontinued"
	ENoSuitablePrice       = "no_suitable_price"
	EInvalidCountry        = "invalid_country"
	EInvalidState          = "invalid_state"
	EShippingAddressNotSet = "shipping_address_not_set" // cart.setBillingAddress
	EShippingAddressNotset = "shipping_address_notset"  // cart.setShippingMethod, cart.checkout (sic)
	EInvalidShippingMethod = "invalid_shipping_method"

	// Payments (docs/api.md section 14).
	EPaymentFailed = "payment_failed"

	// Customers and sign-in (docs/api.md section 15).
	EInvalidCredentials = "invalid_credentials"
	ETooManyAttempts    = "too_many_attempts"
	EInvalidResetToken  = "invalid_reset_token"
	ECustomerNotFound   = "customer_not_found"
	EAddressNotFound    = "address_not_found"
	EClientNotFound     = "client_not_found"
	// Coupons (docs/api.md section 16).
	ECouponNotFound          = "coupon_not_found"
	ECouponUsageLimitReached = "coupon_usage_limit_reached"
	// Webhooks and idempotency keys (docs/api.md sections 17 and 18).
	EWebhookNotFound      = "webhook_not_found"
	EDeliveryNotFound     = "delivery_not_found"
	EIdempotencyKeyInUse  = "idempotency_key_in_use"
	EIdempotencyKeyReused = "idempotency_key_reused"
	// Orders (docs/api.md section 13): all 400 but the *_not_found (404).
	EOrderNotFound              = "order_not_found"
	EInvalidOrderState          = "invalid_order_state"
	EFulfillmentExceedsQuantity = "fulfillment_exceeds_quantity"
	EFulfillmentNotFound        = "fulfillment_not_found"
	ERefundExceedsCaptured      = "refund_exceeds_captured"
	// Returns and exchanges (docs/api.md section 24): all 400 but
	// return_not_found (404).
	EReturnNotFound        = "return_not_found"
	EInvalidReturnState    = "invalid_return_state"
	EReturnWindowExpired   = "return_window_expired"
	EReturnExceedsQuantity = "return_exceeds_quantity"
	EPaymentRequired       = "payment_required"
	EOutOfStock            = "out_of_stock"
	// Email (docs/api.md section 22).
	EMailNotFound = "mail_not_found"
	// Product images (docs/api.md section 23): invalid_media 400,
	// media_not_found 404, media_in_use 409.
	EInvalidMedia  = "invalid_media"
	EMediaNotFound = "media_not_found"
	EMediaInUse    = "media_in_use"
	// Catalog import (docs/api.md section 25).
	EJobNotFound = "job_not_found"

	// Customer groups and price lists (docs/api.md section 26).
	EGroupNotFound     = "group_not_found"
	EPriceListNotFound = "price_list_not_found"
	// EPricesChanged: a checkout found entry prices changed (a price
	// list) since the cart was last calculated.
	EPricesChanged = "prices_changed"
)

// Error is the service's one error type. Code is one of the E* constants,
// Data the optional value docs/api.md section 2 gives for the code, and
// Message a human-readable explanation that is logged, never sent for
// internal errors.
type Error struct {
	Code    string
	Data    any
	Message string
	// Err is the cause, when there is one (Errorf with %w): errors.Is and
	// errors.As see it through Unwrap.
	Err error
}

// Unwrap returns the cause of the error, or nil.
func (e *Error) Unwrap() error { return e.Err }

// Error implements the error interface.
func (e *Error) Error() string {
	if e.Message != "" {
		return e.Code + ": " + e.Message
	}
	return e.Code
}

// Errorf returns an *Error with the code, a message formatted as
// fmt.Errorf does and no data. A %w verb makes its operand the cause
// (Unwrap), so the chain stays visible to errors.Is and errors.As.
func Errorf(code, format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	e := &Error{Code: code, Message: err.Error()}
	if errors.Unwrap(err) != nil {
		e.Err = err
	} else if u, ok := err.(interface{ Unwrap() []error }); ok && len(u.Unwrap()) > 0 {
		e.Err = err
	}
	return e
}

// NewError returns an *Error with the code and data.
func NewError(code string, data any) *Error {
	return &Error{Code: code, Data: data}
}

// Invalid returns a validation_error whose data is the list of problems,
// each naming its field path ("items[2].quantity: must be a positive integer").
func Invalid(problems ...string) *Error {
	return &Error{Code: EValidation, Data: problems, Message: fmt.Sprint(problems)}
}

// ProblemsOf returns the field problems of a validation_error (its data), or
// the error's text for anything else: for collecting every problem of a
// request before answering.
func ProblemsOf(err error) []string {
	if ps, ok := ErrorData(err).([]string); ok && ErrorCode(err) == EValidation {
		return ps
	}
	return []string{err.Error()}
}

// ErrorCode returns the code of err: the Code of an *Error found with
// errors.As, "" for nil, and internal_error for anything else.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EInternal
}

// ErrorData returns the Data of the *Error in err's chain, or nil.
func ErrorData(err error) any {
	var e *Error
	if errors.As(err, &e) {
		return e.Data
	}
	return nil
}
