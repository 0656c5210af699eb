package stock

// CreateInput is the argument of stock.create. Quantity is a pointer so
// that an absent quantity is told apart from 0.
type CreateInput struct {
	ProductID   string `json:"productId"`
	WarehouseID string `json:"warehouseId"`
	Quantity    *int64 `json:"quantity"`
}

// UpdateInput is the argument of stock.update: the new quantity on hand
// (an absolute value, not a delta) of an existing record.
type UpdateInput struct {
	ProductID   string `json:"productId"`
	WarehouseID string `json:"warehouseId"`
	Quantity    *int64 `json:"quantity"`
}

// InfoInput is the argument of stock.info.
type InfoInput struct {
	ProductID   string `json:"productId"`
	WarehouseID string `json:"warehouseId"`
}
