package storetest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/media"
	"github.com/commercekit/commerce/sqldb"
)

// Media is the suite of the product images' store: records are kept as
// inserted (alt text and the product medias' own fields too), listed
// newest first with the total, by product; a product listing an image
// is its user; delete answers media_not_found for an unknown id.
func Media(t *testing.T, open Opener) {
	db := open(t)
	ctx := context.Background()
	store := sqldb.NewMediaStore(db)
	at := time.Now().UTC().Truncate(time.Millisecond)
	var ms []media.Media
	for i, id := range []string{"m1", "m2", "m3"} {
		m := media.Media{ID: id, Ext: "jpg", Width: 100 + i, Height: 50, Bytes: 1234, SHA256: "ab12", Alt: "Alt «" + id + "»",
			CreatedAt: at.Add(time.Duration(i) * time.Second)}
		ms = append(ms, m)
		err := store.Update(ctx, func(tx media.Tx) error {
			if err := tx.Insert(ctx, m); err != nil {
				return err
			}
			return event.Emit(tx, event.Medias, event.Create, at, map[string]any{"new": m})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	got, err := store.Media(ctx, "m2")
	if err != nil || got != ms[1] {
		t.Fatalf("Media(m2) = %+v, %v; want %+v", got, err, ms[1])
	}
	_, err = store.Media(ctx, "nope")
	wantError(t, err, commerce.EMediaNotFound, "nope")

	cat := newCategory("c1", root)
	p := newProduct("MED-1", cat.ID)
	p.Medias = []catalog.Media{{ID: "m1", URL: "/media/m1.jpg", Alt: "Front", Width: 100, Height: 50}, {ID: "elsewhere", URL: "//cdn/x.jpg"}}
	seed(t, sqldb.NewCatalogStore(db), []*catalog.Category{cat}, p)
	stored, err := sqldb.NewCatalogStore(db).Product(ctx, p.ID)
	if err != nil || !slices.Equal(stored.Medias, p.Medias) {
		t.Errorf("product medias kept as %+v, %v; want %+v", stored.Medias, err, p.Medias)
	}

	list, total, err := store.List(ctx, media.Filter{Limit: 2})
	if err != nil || total != 3 || len(list) != 2 || list[0].ID != "m3" || list[1].ID != "m2" {
		t.Errorf("List = %+v total %d, %v; want m3, m2 of 3", list, total, err)
	}
	list, total, err = store.List(ctx, media.Filter{ProductID: p.ID, Limit: 10})
	if err != nil || total != 1 || len(list) != 1 || list[0].ID != "m1" {
		t.Errorf("List of the product = %+v total %d, %v; want m1", list, total, err)
	}
	err = store.Update(ctx, func(tx media.Tx) error {
		users, err := tx.Users(ctx, "m1")
		if err != nil || !slices.Equal(users, []string{p.ID}) {
			t.Errorf("Users(m1) = %v, %v; want the product", users, err)
		}
		if users, err := tx.Users(ctx, "m2"); err != nil || len(users) != 0 {
			t.Errorf("Users(m2) = %v, %v; want none", users, err)
		}
		old, err := tx.Delete(ctx, "m2")
		if err != nil || old.ID != "m2" || old.Alt != ms[1].Alt {
			t.Errorf("Delete(m2) = %+v, %v", old, err)
		}
		_, err = tx.Delete(ctx, "m2")
		wantError(t, err, commerce.EMediaNotFound, "m2")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, total, _ := store.List(ctx, media.Filter{Limit: 10}); total != 2 {
		t.Errorf("after a delete: %d images, want 2", total)
	}
}
