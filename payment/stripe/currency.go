package stripe

import (
	"fmt"
	"math"
	"strings"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/payment"
)

// Stripe's amounts are integers in the currency's smallest unit as Stripe
// counts it (https://docs.stripe.com/currencies), which is not always the
// ISO 4217 minor unit the shop keeps amounts in (package money):
//
//   - zero-decimal currencies (zeroDecimal): whole units;
//   - three-decimal currencies (BHD, JOD, KWD, OMR, TND): thousandths, and
//     the last digit must be 0 (Stripe's partners take hundredths only);
//   - every other currency: hundredths, also where ISO 4217 (or CLDR, which
//     package money reads) counts none (ISK, whose amounts must then be
//     multiples of 100, IDR, ALL, RSD...).
//
// The provider converts every amount it sends (toStripe) and every amount
// a webhook event reports (fromStripe).

// zeroDecimal are Stripe's zero-decimal currencies.
var zeroDecimal = map[string]bool{
	"BIF": true, "CLP": true, "DJF": true, "GNF": true, "JPY": true, "KMF": true, "KRW": true, "MGA": true,
	"PYG": true, "RWF": true, "UGX": true, "VND": true, "VUV": true, "XAF": true, "XOF": true, "XPF": true,
}

// threeDecimal are Stripe's three-decimal currencies.
var threeDecimal = map[string]bool{"BHD": true, "JOD": true, "KWD": true, "OMR": true, "TND": true}

// decimals returns how many decimals Stripe's amounts in the currency
// (upper case) have.
func decimals(currency string) int {
	switch {
	case zeroDecimal[currency]:
		return 0
	case threeDecimal[currency]:
		return 3
	}
	return 2
}

// EAmountNotSupported is the Decline code of an amount Stripe cannot take
// exactly in its currency (a KWD amount that is not a multiple of 0.010).
const EAmountNotSupported = "amount_not_supported"

// toStripe converts amount, in minor units of currency at the shop's
// precision, into Stripe's units. An amount that cannot be sent exactly
// is refused (a *Decline with code EAmountNotSupported): nothing is
// rounded. An unknown currency is an internal error.
func toStripe(amount int64, currency string) (int64, error) {
	prec, err := money.Precision(currency)
	if err != nil {
		return 0, commerce.Errorf(commerce.EInternal, "stripe: %w", err)
	}
	dec := decimals(currency)
	out := amount
	switch {
	case dec > prec:
		f := money.Pow10(dec - prec)
		if amount > math.MaxInt64/f || amount < math.MinInt64/f {
			return 0, unsupported(amount, currency, prec, "is too large")
		}
		out = amount * f
	case dec < prec:
		f := money.Pow10(prec - dec)
		if amount%f != 0 {
			return 0, unsupported(amount, currency, prec, fmt.Sprintf("is not a multiple of %s", money.FormatMinor(f, prec)))
		}
		out = amount / f
	}
	if dec == 3 && out%10 != 0 {
		return 0, unsupported(amount, currency, prec, "is not a multiple of 0.010 (Stripe takes three-decimal amounts rounded to ten)")
	}
	return out, nil
}

// unsupported is the refusal of an amount Stripe cannot take.
func unsupported(amount int64, currency string, prec int, why string) error {
	return payment.Declined(EAmountNotSupported,
		fmt.Sprintf("Stripe cannot take %s %s: the amount %s.", money.FormatMinor(amount, prec), currency, why), nil)
}

// fromStripe converts an amount Stripe reports in currency (any case)
// into minor units at the shop's precision; a fraction of the shop's
// unit is dropped (Stripe never reports one for amounts the service
// sent). An amount in an unknown currency, or without one, is kept as
// given.
func fromStripe(amount int64, currency string) int64 {
	currency = strings.ToUpper(currency)
	prec, err := money.Precision(currency)
	if err != nil {
		return amount
	}
	switch dec := decimals(currency); {
	case dec > prec:
		return amount / money.Pow10(dec-prec)
	case dec < prec:
		f := money.Pow10(prec - dec)
		if amount > math.MaxInt64/f {
			return math.MaxInt64
		}
		return amount * f
	}
	return amount
}
