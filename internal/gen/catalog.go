package gen

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/promotion"
	"github.com/commercekit/commerce/promotion/engine"
	"github.com/commercekit/commerce/shipping"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/tax"
)

// productBatch is the number of products a transaction creates.
const productBatch = 5000

// settings writes the one tax and the one shipping method.
func (g *generator) settings(ctx context.Context) error {
	rate, err := money.ParseDecimal("21")
	if err != nil {
		return err
	}
	err = sqldb.NewTaxStore(g.db).Update(ctx, func(tx tax.Tx) error {
		return tx.CreateTax(ctx, tax.Tax{ID: g.id(), Code: catalog.DefaultTaxCode, Class: catalog.DefaultTaxCode, Title: "VAT 21%", Rate: rate, IsPercentage: true})
	})
	if err != nil {
		return err
	}
	m := shipping.Method{ID: g.id(), Title: "Standard", Active: true, TaxCode: catalog.DefaultTaxCode, Rates: []shipping.RateGroup{
		{ID: g.id(), Locations: []shipping.Location{{Country: "US"}}, Rates: []shipping.Rate{{Currency: "USD", Amount: 500}}},
		{ID: g.id(), Locations: []shipping.Location{{Country: "ES"}, {Country: "FR"}, {Country: "DE"}, {Country: "IT"}, {Country: "GB"}},
			Rates: []shipping.Rate{{Currency: "EUR", Amount: 490}, {Currency: "GBP", Amount: 450}}},
	}}
	return sqldb.NewShippingStore(g.db).Update(ctx, func(tx shipping.Tx) error { return tx.CreateMethod(ctx, m) })
}

// categories writes the tree: topCategories under the root, the other
// categories as their leaves.
func (g *generator) categories(ctx context.Context) error {
	return sqldb.NewCatalogStore(g.db).Update(ctx, func(tx catalog.Tx) error {
		for i := range topCategories {
			c := &catalog.Category{ID: g.id(), Title: fmt.Sprintf("%s and more", types[i]), Slug: fmt.Sprintf("top-%d", i),
				Parent: catalog.RootID, Level: 2}
			c.Path = catalog.RootID + "." + c.ID
			if err := tx.CreateCategory(ctx, c); err != nil {
				return err
			}
			g.tops = append(g.tops, c.ID)
		}
		for i := range g.sizes.Categories - topCategories {
			top := i % topCategories
			c := &catalog.Category{ID: g.id(), Title: fmt.Sprintf("%s %s %d", types[top], features[i%len(features)], i),
				Slug: fmt.Sprintf("leaf-%d", i), Parent: g.tops[top], Level: 3}
			c.Path = catalog.RootID + "." + g.tops[top] + "." + c.ID
			if err := tx.CreateCategory(ctx, c); err != nil {
				return err
			}
			g.leaves = append(g.leaves, c.ID)
		}
		g.facts.BigCategory = g.tops[0]
		return nil
	})
}

// products writes the catalog in transactions of productBatch: one product
// in forty starts a family (a base, without prices, and the next three
// products its variants, one per colour); every other product has three
// prices (USD, EUR, GBP) and an image.
func (g *generator) products(ctx context.Context) error {
	store := sqldb.NewCatalogStore(g.db)
	var base *catalog.Product
	variant := 0
	families := 0
	return batches(g.sizes.Products, productBatch, func(from, to int) error {
		batch := make([]*catalog.Product, 0, to-from)
		for i := from; i < to; i++ {
			leaf := g.r.IntN(len(g.leaves))
			brand := g.pick(brands)
			p := &catalog.Product{ID: g.id(), SKU: fmt.Sprintf("GEN-%08d", i), Status: catalog.StatusOnline,
				Title: fmt.Sprintf("%s %s %s %s %c%c%d", types[g.r.IntN(len(types))], brand, g.pick(features), g.pick(features),
					'A'+g.r.IntN(26), 'A'+g.r.IntN(26), g.r.IntN(1000)),
				Brand:       brand,
				Description: fmt.Sprintf("Model %s, %s and %s. %s finish.", g.pick(features), g.pick(features), g.pick(features), g.pick(features)),
				Categories:  []string{g.tops[leaf%topCategories], g.leaves[leaf]}, TaxCode: catalog.DefaultTaxCode,
				Medias:          []catalog.Media{{ID: "210x210:1", URL: fmt.Sprintf("//img.example/%d_1.jpg", i)}},
				Classifications: []catalog.ClassificationValue{}, Prices: []catalog.Price{}}
			switch {
			case variant > 0: // a variant of base: its title and categories
				p.Base, p.Title, p.Categories = base.ID, base.Title+" "+colors[3-variant], base.Categories
				p.Variations = []catalog.Variation{{ID: "color", Value: colors[3-variant]}}
				variant--
			case i%40 == 20 && families < g.sizes.Families && i+3 < g.sizes.Products:
				p.Modifiers = []string{"color"}
				p.Variants = []string{}
				base, variant = p, 3
				families++
			}
			if p.Modifiers == nil {
				usd := int64(500 + g.r.IntN(300_000))
				p.Prices = []catalog.Price{{ID: g.id(), Amount: usd, Currency: "USD"},
					{ID: g.id(), Amount: usd * 92 / 100, Currency: "EUR"}, {ID: g.id(), Amount: usd * 79 / 100, Currency: "GBP"}}
				g.sale = append(g.sale, saleProduct{id: p.ID, sku: p.SKU, title: p.Title, usd: usd})
			}
			batch = append(batch, p)
		}
		return store.Update(ctx, func(tx catalog.Tx) error { return tx.CreateProducts(ctx, batch) })
	})
}

// stock gives every product that can be sold a stock in both warehouses,
// in multi-row INSERTs.
func (g *generator) stock(ctx context.Context) error {
	const rows = 500
	return batches(len(g.sale), 20*rows, func(from, to int) error {
		return g.db.Update(ctx, func(tx *sqldb.Tx) error {
			return batches(to-from, rows, func(a, b int) error {
				var q strings.Builder
				q.WriteString(`INSERT INTO stock (product_id, warehouse_id, quantity, reserved) VALUES `)
				args := make([]any, 0, (b-a)*len(Warehouses)*3)
				for i := from + a; i < from+b; i++ {
					for _, w := range Warehouses {
						if len(args) > 0 {
							q.WriteString(", ")
						}
						q.WriteString("(?, ?, ?, 0)")
						args = append(args, g.sale[i].id, w, 10+g.r.IntN(1000))
					}
				}
				_, err := tx.Exec(ctx, q.String(), args...)
				return err
			})
		})
	})
}

// promotions writes the promotions: 10 % off three products of a leaf
// category, each on its own leaf.
func (g *generator) promotions(ctx context.Context) error {
	return sqldb.NewPromotionStore(g.db).Update(ctx, func(tx promotion.Tx) error {
		for i := range g.sizes.Promotions {
			leaf := g.leaves[i%len(g.leaves)]
			cond, err := json.Marshal(map[string]any{"category": map[string]any{"id": leaf, "quantity": 3}})
			if err != nil {
				return err
			}
			then, err := json.Marshal(map[string]any{"category": map[string]any{"id": leaf, "quantity": 3,
				"discount": map[string]any{"rate": 10, "isPercentage": true}}})
			if err != nil {
				return err
			}
			rules, err := engine.Parse(cond, then)
			if err != nil {
				return err
			}
			p := &promotion.Promotion{ID: g.id(), Title: fmt.Sprintf("10%% off three of category %d", i), Class: "default",
				Active: true, Priority: 100 + i, If: rules.If, Then: rules.Then}
			if err := tx.CreatePromotion(ctx, p); err != nil {
				return err
			}
		}
		return nil
	})
}
