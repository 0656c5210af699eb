package admin_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/commercekit/commerce/admin"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestCategoryOptionsPageThrough: the category selects and the tree list
// every category, read a page at a time (here 3 a page), and past the
// most they list (here 7) the page says that only the first are listed.
func TestCategoryOptionsPageThrough(t *testing.T) {
	defer admin.SetCategoryPaging(3, 7)()
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		b := e.browser(t)
		b.mustSignIn()
		add := func(from, to int) {
			for i := from; i < to; i++ {
				e.Post(t, "/catalog/v1/category.create", e.Admin, map[string]any{"title": fmt.Sprintf("Cat %02d", i), "slug": fmt.Sprintf("cat-%02d", i), "parent": "ROOT"}).Must(t)
			}
		}
		// ROOT and 5 categories: 6, two pages of 3 and an empty one.
		add(0, 5)
		for _, p := range []string{"/admin/categories", "/admin/products", "/admin/products/new"} {
			got := b.get(p)
			for i := range 5 {
				if !strings.Contains(got.Body, fmt.Sprintf(">Cat %02d<", i)) {
					t.Errorf("%s does not list Cat %02d", p, i)
				}
			}
			if strings.Contains(got.Body, "categories-cut") {
				t.Errorf("%s says the categories are cut with all of them listed", p)
			}
		}
		// ROOT and 8: 7 listed, and the page says so.
		add(5, 8)
		for _, p := range []string{"/admin/categories", "/admin/products", "/admin/products/new"} {
			got := b.get(p)
			if !strings.Contains(got.Body, "Only the first 7 categories are listed.") {
				t.Errorf("%s lists 7 of 9 categories without saying so", p)
			}
		}
	})
}
