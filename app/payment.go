package app

import (
	"fmt"

	"github.com/commercekit/commerce/payment"
	"github.com/commercekit/commerce/payment/manual"
)

// payments builds the payment providers from the configuration: the
// built-in manual provider and the others given (which may not take the
// id "manual").
func payments(others map[string]payment.Provider) (*payment.Providers, error) {
	byID := map[string]payment.Provider{manual.ID: manual.New()}
	for id, p := range others {
		if _, taken := byID[id]; taken {
			return nil, fmt.Errorf("payment provider %q: the id is taken", id)
		}
		byID[id] = p
	}
	return payment.NewProviders(byID)
}
