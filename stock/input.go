package stock

// CreateInput is the argument of stock.create. Quantity is a pointer so
// that an absent quantity is told apart from 0.
type CreateInput struct {
	// ProductID is the product's id (a product the catalog has).
	ProductID string `json:"productId" openapi:"required"`
	// WarehouseID names the warehouse (kept in Unicode NFC).
	WarehouseID string `json:"warehouseId" openapi:"required"`
	// Quantity is the number of units on hand, 0 or more.
	Quantity *int64 `json:"quantity" openapi:"required,min=0"`
}

// UpdateInput is the argument of stock.update: the new quantity on hand
// (an absolute value, not a delta) of an existing record.
type UpdateInput struct {
	// ProductID is the product's id.
	ProductID string `json:"productId" openapi:"required"`
	// WarehouseID names the warehouse.
	WarehouseID string `json:"warehouseId" openapi:"required"`
	// Quantity is the new number of units on hand (not a change), at least
	// the units reserved.
	Quantity *int64 `json:"quantity" openapi:"required,min=0"`
}

// InfoInput is the argument of stock.info.
type InfoInput struct {
	// ProductID is the product's id.
	ProductID string `json:"productId" openapi:"required"`
	// WarehouseID names the warehouse.
	WarehouseID string `json:"warehouseId" openapi:"required"`
}
