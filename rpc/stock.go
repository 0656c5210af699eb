package rpc

import (
	"context"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/stock"
)

// RegisterStock registers the stock operations under /stock/v1/:
// stock.create and stock.update (admin) with {productId, warehouseId,
// quantity}, and stock.info (any token; GET or POST) with {productId,
// warehouseId}. Each answers {ok, stock: {productId, warehouseId, quantity,
// reserved, available}}; stock.create of a product the catalog does not
// have is product_not_found (see stock.Service for every error).
func RegisterStock(s *Server, svc *stock.Service) {
	Handle(s, Op{Service: "stock", Name: "stock.create", Admin: true, Result: stockResult{},
		Doc: "Creates the stock record of a product in a warehouse.", Errors: []string{commerce.EProductNotFound, commerce.EDuplicateKey}}, stockOp(svc.Create))
	Handle(s, Op{Service: "stock", Name: "stock.update", Admin: true, Result: stockResult{},
		Doc: "Sets the quantity on hand of a stock record.", Errors: []string{commerce.EStockNotFound, commerce.ENotEnoughStock}}, stockOp(svc.Update))
	Handle(s, Op{Service: "stock", Name: "stock.info", Read: true, Result: stockResult{},
		Doc: "The stock of a product in a warehouse, with what carts reserve.", Errors: []string{commerce.EStockNotFound}}, stockOp(svc.Info))
}

// stockOp adapts a use case returning a stock record to an operation
// answering {ok, stock}.
func stockOp[A any](fn func(context.Context, A) (stock.Stock, error)) func(context.Context, *A) (any, error) {
	return func(ctx context.Context, a *A) (any, error) {
		st, err := fn(ctx, *a)
		if err != nil {
			return nil, err
		}
		return stockResult{st}, nil
	}
}

type stockResult struct {
	Stock stock.Stock `json:"stock"`
}
