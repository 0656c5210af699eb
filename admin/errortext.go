package admin

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/staff"
)

// errorSentences are the error codes in words: one sentence per code the
// admin app can meet, from the error's data (JSON-shaped: maps, lists,
// json.Number; see plainData) and the names of ids the page knows (an
// order's items). Every code of error.go has one (TestEveryErrorCodeHasASentence);
// a code added there gets its sentence here.
var errorSentences = map[string]func(d errData) string{
	commerce.EValidation:        func(errData) string { return "Some fields need a change." },
	commerce.EInvalidToken:      func(errData) string { return "Your session has ended. Sign in again." },
	commerce.EForbidden:         func(errData) string { return "Your account may not do this." },
	commerce.EOperationNotFound: func(errData) string { return "This action is not available in this service." },
	commerce.EMethodNotAllowed:  func(errData) string { return "This action cannot be sent this way." },
	commerce.ERequestTooLarge:   func(errData) string { return "What was sent is too large: at most 1 MiB." },
	commerce.EInternal: func(errData) string {
		return "Something went wrong in the service. Try again; if it happens again, the service's log has the details."
	},
	commerce.EUnavailable: func(errData) string {
		return "The database cannot be reached just now. Nothing was changed; try again in a moment."
	},
	commerce.EDuplicateKey: duplicateSentence,
	commerce.EConcurrentMod: func(errData) string {
		return "Someone changed this at the same time, or a payment of it is still being processed. Reload the page and try again."
	},

	// Catalog.
	commerce.EMaxCategoriesPerProduct: func(d errData) string {
		return "A product can be in at most " + d.text("") + " categories."
	},
	commerce.ECategoryNotFound: func(d errData) string { return "A category chosen no longer exists" + d.quoted("") + "." },
	commerce.ECategoryNotEmpty: func(errData) string {
		return "The category still has subcategories or products: move or remove them first."
	},
	commerce.EParentCategoryNotFound: func(d errData) string { return "The parent category chosen no longer exists" + d.quoted("") + "." },
	commerce.EMissingClassification: func(d errData) string {
		return "The classification" + d.quoted("") + " of the product's categories needs a value."
	},
	commerce.EEmptyClassificationValue: func(d errData) string {
		return "The classification" + d.quoted("") + " has an empty value."
	},
	commerce.EClassificationValueNotBoolean: func(d errData) string {
		return "The classification" + d.quoted("") + " must be yes or no (true or false)."
	},
	commerce.EClassificationValueNotNumber: func(d errData) string {
		return "The classification" + d.quoted("") + " must be a number."
	},
	commerce.EInconsistentBaseVariants:    func(errData) string { return "The variants do not match the base product's variations." },
	commerce.EInconsistentBaseVariations:  func(errData) string { return "The variations do not match the base product's." },
	commerce.EInconsistentBaseVariantions: func(errData) string { return "The variations do not match the base product's." },
	commerce.EBaseProductNotFound:         func(d errData) string { return "The base product" + d.quoted("") + " does not exist." },
	commerce.EVariationDataNotFound:       func(errData) string { return "A variation names a value the base product does not have." },
	commerce.ENoModifiersFound:            func(errData) string { return "The base product has no variations to choose from." },
	commerce.EVariantNotFound:             func(d errData) string { return "The variant" + d.quoted("") + " does not exist." },
	commerce.EProductNotFound:             func(d errData) string { return "The product" + d.quoted("") + " does not exist (any more)." },
	commerce.EProductNotSaved: func(errData) string {
		return "The product could not be saved: it was changed at the same time. Reload the page and try again."
	},
	commerce.EPriceInvalid: func(d errData) string {
		cur := d.text("currency")
		s := "The price " + strings.TrimSpace(d.text("amount")+" "+cur) + " is not valid"
		if p, err := money.Precision(cur); err == nil {
			return s + ": " + cur + " amounts have at most " + plural(int64(p), "decimal") + "."
		}
		return s + "."
	},
	commerce.EPriceCurrencyInvalid: func(d errData) string {
		return d.subject("", "The currency") + " is not a currency code: use an ISO 4217 code such as USD or EUR."
	},
	commerce.EPriceCountryInvalid: func(d errData) string {
		return d.subject("", "The country") + " is not a country code: use an ISO 3166 code such as US or ES."
	},
	commerce.EPriceValidDates: func(errData) string { return "A price's end date must come after its start date." },

	// Promotions, taxes, stock, shipping.
	commerce.EPromotionNotFound: func(errData) string { return "The promotion no longer exists." },
	commerce.ETaxNotFound:       func(errData) string { return "The tax no longer exists." },
	commerce.EStockNotFound: func(d errData) string {
		return "The product has no stock in the warehouse" + d.quoted("warehouseId") + "."
	},
	commerce.ENotEnoughStock: func(d errData) string {
		return "Only " + plural(d.int("availableQuantity"), "unit") + " available in the warehouse" + d.quoted("warehouseId") +
			" (" + d.text("requestedQuantity") + " asked for)."
	},
	commerce.EShippingNotFound: func(errData) string { return "The shipping method no longer exists." },

	// Carts (the try-it of a promotion reads a cart).
	commerce.ECartNotFound:          func(d errData) string { return "No cart has the id" + d.quoted("") + "." },
	commerce.ECartNotActive:         func(errData) string { return "The cart is no longer active (it was checked out or abandoned)." },
	commerce.EItemNotFound:          func(errData) string { return "The cart has no such item." },
	commerce.EMaxQuantityPerProduct: func(d errData) string { return "A cart may hold at most " + d.text("") + " units of a product." },
	commerce.EMaxNumberOfEntries:    func(d errData) string { return "A cart may hold at most " + d.text("") + " lines." },
	commerce.EProductDiscontinued:   func(d errData) string { return "The product" + d.quoted("") + " is discontinued." },
	commerce.ENoSuitablePrice: func(d errData) string {
		return "The product" + d.quoted("") + " has no price for the cart's currency and country."
	},
	commerce.EInvalidCountry: func(d errData) string {
		return d.subject("", "The country") + " is not a country code: use an ISO 3166 code such as US or ES."
	},
	commerce.EInvalidState:          func(errData) string { return "The state is not one of the country's." },
	commerce.EShippingAddressNotSet: func(errData) string { return "The cart needs a shipping address first." },
	commerce.EShippingAddressNotset: func(errData) string { return "The cart needs a shipping address first." },
	commerce.EInvalidShippingMethod: func(errData) string {
		return "That shipping method does not serve the cart's address and currency."
	},

	// Payments, customers, sign-in.
	commerce.EPaymentFailed: func(d errData) string {
		s := "The payment provider refused"
		if m := d.text("message"); m != "" {
			return s + ": " + strings.TrimSuffix(m, ".") + "."
		}
		if c := d.text("code"); c != "" {
			return s + " (" + words(c) + ")."
		}
		return s + "."
	},
	commerce.EInvalidCredentials: func(errData) string { return "That email and password do not match an account." },
	commerce.ETooManyAttempts: func(d errData) string {
		s := "Too many failed sign-ins for this email."
		if n := d.int("retryAfter"); n > 0 {
			return s + " Try again in " + duration(n) + "."
		}
		return s + " Try again later."
	},
	commerce.EInvalidResetToken: func(errData) string { return "The password reset link is not valid or has expired." },
	commerce.ECustomerNotFound:  func(errData) string { return "The customer no longer exists." },
	commerce.EAddressNotFound:   func(errData) string { return "The customer has no such address." },
	commerce.EClientNotFound:    func(errData) string { return "The API client no longer exists." },
	commerce.ECouponNotFound:    func(d errData) string { return "No coupon has the code" + d.quoted("") + "." },
	commerce.ECouponUsageLimitReached: func(d errData) string {
		return "The coupon" + d.quoted("") + " has been used as many times as it may be."
	},

	// Webhooks, idempotency keys.
	commerce.EWebhookNotFound:  func(errData) string { return "The webhook no longer exists." },
	commerce.EDeliveryNotFound: func(errData) string { return "The delivery no longer exists." },
	commerce.EIdempotencyKeyInUse: func(errData) string {
		return "This form is still being processed. Wait a moment, then reload the page."
	},
	commerce.EIdempotencyKeyReused: func(errData) string {
		return "This form was already sent with other values. Reload the page and fill it in again."
	},

	// Orders.
	commerce.EOrderNotFound: func(errData) string { return "The order no longer exists." },
	commerce.EInvalidOrderState: func(d errData) string {
		return "The order cannot do this now: it is " + status(d.text("status")) + ", its payment " + status(d.text("paymentStatus")) +
			" and its fulfilment " + status(d.text("fulfillmentStatus")) + ". Reload the page to see what it allows."
	},
	commerce.EFulfillmentExceedsQuantity: func(d errData) string {
		return "Only " + plural(d.int("remaining"), "unit") + " of " + d.name("itemId") + " left to ship."
	},
	commerce.EFulfillmentNotFound: func(errData) string { return "The order has no such shipment." },
	commerce.ERefundExceedsCaptured: func(d errData) string {
		return "You can refund at most " + d.money("available") + "."
	},

	// Email.
	commerce.EMailNotFound: func(errData) string { return "The message no longer exists." },

	// Product images.
	commerce.EInvalidMedia: func(d errData) string {
		if r := d.text("reason"); r != "" {
			return "This file cannot be used as an image: " + r + "."
		}
		return "This file cannot be used as an image."
	},
	commerce.EMediaNotFound: func(errData) string { return "The image no longer exists." },
	commerce.EMediaInUse: func(errData) string {
		return "The image is still shown on a product: take it off the product first."
	},
	// Staff.
	staff.EStaffNotFound: func(errData) string { return "The staff member no longer exists." },
	staff.ELastOwner: func(errData) string {
		return "The shop needs at least one active owner: make someone else an owner first."
	},
	staff.EInvalidInvite: func(errData) string { return "The invitation link is not valid or has expired: ask for a new one." },

	// Catalog import.
	commerce.EJobNotFound: func(errData) string { return "The import job no longer exists." },
	// Customer groups and price lists.
	commerce.EGroupNotFound:     func(errData) string { return "There is no customer group with that code: create it first." },
	commerce.EPriceListNotFound: func(errData) string { return "The price list no longer exists." },
	commerce.EPricesChanged: func(errData) string {
		return "Some prices in the cart changed since it was last shown (a price list changed). Show the cart again, then check out."
	},

	// Returns and exchanges.
	commerce.EReturnNotFound: func(errData) string { return "The return no longer exists." },
	commerce.EInvalidReturnState: func(d errData) string {
		return "The return cannot do this now: it is " + status(d.text("status")) + ". Reload the page to see what it allows."
	},
	commerce.EReturnWindowExpired: func(d errData) string {
		s := "The time to ask for a return has passed"
		if at := d.text("deliveredAt"); at != "" {
			return s + " (delivered " + at + ")."
		}
		return s + "."
	},
	commerce.EReturnExceedsQuantity: func(d errData) string {
		return "Only " + plural(d.int("remaining"), "unit") + " of " + d.name("itemId") + " can still be returned."
	},
	commerce.EPaymentRequired: func(d errData) string {
		return "The exchange costs " + d.money("amount") + " more than what is returned: give a payment for the difference."
	},
	commerce.EOutOfStock: func(d errData) string {
		return "Only " + plural(d.int("availableQuantity"), "unit") + " of the exchange's product left in the warehouse" + d.quoted("warehouseId") + "."
	},
}

// errorSentence is the sentence of an error code (its words, for a code
// with no sentence yet).
func errorSentence(code string, data any, names map[string]string) string {
	if f, ok := errorSentences[code]; ok {
		return f(errData{v: data, names: names})
	}
	if code == "" {
		return "Something went wrong."
	}
	return capitalize(words(code)) + "."
}

// errData reads an error's data for its sentence.
type errData struct {
	v     any
	names map[string]string
}

// get returns a field of the data (the data itself for "").
func (d errData) get(key string) any {
	if key == "" {
		return d.v
	}
	if m, ok := d.v.(map[string]any); ok {
		return m[key]
	}
	return nil
}

// text is a field as text ("" when absent).
func (d errData) text(key string) string {
	v := d.get(key)
	if v == nil {
		return ""
	}
	if _, ok := v.(map[string]any); ok {
		return ""
	}
	if _, ok := v.([]any); ok {
		return ""
	}
	return fmt.Sprint(v)
}

// quoted is a field in quotes after a space (" “X”"), or "" when absent.
func (d errData) quoted(key string) string {
	if s := d.text(key); s != "" {
		if n, ok := d.names[s]; ok {
			s = n
		}
		return " “" + s + "”"
	}
	return ""
}

// subject is a field in quotes, or fallback when absent.
func (d errData) subject(key, fallback string) string {
	if s := d.quoted(key); s != "" {
		return s[1:]
	}
	return fallback
}

// name is an id of the data by its name on the page, else the id.
func (d errData) name(key string) string {
	s := d.text(key)
	if n, ok := d.names[s]; ok {
		return n
	}
	return "“" + s + "”"
}

func (d errData) int(key string) int64 {
	n, _ := strconv.ParseInt(d.text(key), 10, 64)
	return n
}

// money is a money object of the data in major units with its currency.
func (d errData) money(key string) string {
	return formatMoney(d.get(key))
}

func plural(n int64, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.FormatInt(n, 10) + " " + unit + "s"
}

// duration words a number of seconds.
func duration(seconds int64) string {
	if seconds < 60 {
		return plural(seconds, "second")
	}
	return plural((seconds+59)/60, "minute")
}

// status words a status constant: PARTIALLY_REFUNDED -> "partially refunded".
func status(s string) string {
	if s == "" {
		return "unknown"
	}
	return strings.ToLower(strings.ReplaceAll(s, "_", " "))
}

// duplicateSentence words duplicate_key by the key taken (its data's
// index and the value).
func duplicateSentence(d errData) string {
	switch d.text("index") {
	case "sku":
		return "Another product already has the SKU" + d.quoted("sku") + "."
	case "parent_slug":
		return "Another category under the same parent already has the slug" + d.quoted("slug") + "."
	case "code":
		return "Another promotion already has the code" + d.quoted("code") + " (codes are compared ignoring case)."
	case "product_warehouse":
		return "The product already has stock in the warehouse" + d.quoted("warehouseId") + "."
	}
	return "Something with this code or name already exists: choose another."
}
