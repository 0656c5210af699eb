package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/auth"
	"github.com/commercekit/commerce/sqlite"
)

// TestBackupUnderLoad: 16 shoppers add to their carts as fast as a serve
// process answers while `commerce backup` copies its SQLite database.
// `commerce restore` refuses while serve has the database open; restored
// into a new place, the backup passes PRAGMA integrity_check, holds every
// add to cart answered before the backup began, keeps the reservation
// invariant (a stock row's reserved units are its active reservations'
// sum), and a serve process starts on it and takes writes.
func TestBackupUnderLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "commerce.db")
	db := "sqlite:" + path
	c0 := startChild(t, db)
	stopped := false
	defer func() {
		if !stopped {
			c0.stop(t)
		}
	}()
	keys, _ := auth.New([]byte(crashSecret))
	admin, _ := keys.Issue(commerce.Claims{Subject: "admin", Scopes: []string{"admin"}}, time.Now(), time.Hour)
	api, _ := keys.Issue(commerce.Claims{Subject: "shopper", Scopes: []string{"api"}}, time.Now(), time.Hour)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 32}}
	must := func(base, op, token string, body any, into string, v any) {
		t.Helper()
		status, res, err := post(client, base+op, token, body)
		if err != nil || status != 200 {
			t.Fatalf("%s: %d %v %s", op, status, err, res["error"])
		}
		if into != "" {
			json.Unmarshal(res[into], v)
		}
	}
	var cat, prod struct{ ID string }
	must(c0.base, "/catalog/v1/category.create", admin, map[string]any{"title": "Load", "slug": "load", "parent": "ROOT"}, "category", &cat)
	must(c0.base, "/catalog/v1/product.create", admin, map[string]any{"sku": "L1", "status": "ONLINE", "title": "Load", "categories": []string{cat.ID},
		"stockStatus": 0, "prices": []map[string]any{{"amount": 1.5, "currency": "USD"}}}, "product", &prod)
	must(c0.base, "/stock/v1/stock.create", admin, map[string]any{"productId": prod.ID, "warehouseId": "W1", "quantity": 1000000}, "", nil)

	// The shoppers: each fills a cart, one unit per add, and starts
	// another at the most a cart line takes (100); acks[cart] are the
	// times each add was answered ok, in order (the cart then holds i+1
	// units).
	const shoppers = 16
	var mu sync.Mutex
	acks := map[string][]time.Time{}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range shoppers {
		wg.Go(func() {
			cart := ""
			for {
				select {
				case <-stop:
					return
				default:
				}
				if cart == "" {
					var c struct{ ID string }
					status, res, err := post(client, c0.base+"/cart/v1/cart.create", api, map[string]any{})
					if err != nil || status != 200 {
						t.Errorf("cart.create: %d %v %s", status, err, res["error"])
						return
					}
					json.Unmarshal(res["cart"], &c)
					cart = c.ID
				}
				status, res, err := post(client, c0.base+"/cart/v1/cart.addToCart", api, map[string]any{"cartId": cart,
					"items": []map[string]any{{"productId": prod.ID, "quantity": 1, "warehouseId": "W1"}}})
				if err == nil && status == 400 && string(res["error"]) == `"max_quantity_per_product_exceeded"` {
					cart = ""
					continue
				}
				if err != nil || status != 200 {
					t.Errorf("addToCart: %d %v %s", status, err, res["error"])
					return
				}
				mu.Lock()
				acks[cart] = append(acks[cart], time.Now())
				mu.Unlock()
			}
		})
	}
	// acked waits until n adds more than at its call were answered (20 s
	// at most: a loaded machine answers slowly).
	acked := func(n int) {
		count := func() int {
			mu.Lock()
			defer mu.Unlock()
			total := 0
			for _, a := range acks {
				total += len(a)
			}
			return total
		}
		want := count() + n
		for deadline := time.Now().Add(20 * time.Second); count() < want && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
	}
	acked(200)
	backup := filepath.Join(dir, "backups", "under-load.db")
	began := time.Now()
	if err := run(context.Background(), []string{"backup", "--db", db, "--to", backup}, func(string) string { return "" }, io.Discard, io.Discard); err != nil {
		t.Fatalf("backup: %v", err)
	}
	took := time.Since(began)
	acked(100)
	// serve holds the database: a restore over it refuses.
	err := run(context.Background(), []string{"restore", "--db", db, "--from", backup}, func(string) string { return "" }, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "serve") {
		t.Errorf("restore while serve runs: %v", err)
	}
	close(stop)
	wg.Wait()
	c0.stop(t)
	stopped = true

	before, total := 0, 0
	var carts []string
	for cart, a := range acks {
		carts = append(carts, cart)
		total += len(a)
		for _, at := range a {
			if at.Before(began) {
				before++
			}
		}
	}
	if before < shoppers || total-before < shoppers {
		t.Fatalf("%d adds answered before the backup, %d in all: not a backup under load", before, total)
	}
	t.Logf("%d adds to cart answered before the backup began, %d in all; the backup took %s", before, total, took)

	restored := filepath.Join(dir, "restored", "commerce.db")
	var out strings.Builder
	if err := run(context.Background(), []string{"restore", "--db", "sqlite:" + restored, "--from", backup}, func(string) string { return "" }, io.Discard, &out); err != nil {
		t.Fatalf("restore: %v", err)
	}
	if !strings.Contains(out.String(), "integrity checked") {
		t.Errorf("restore said: %s", out.String())
	}
	rdb, err := sql.Open("sqlite", "file:"+restored+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	var check string
	if err := rdb.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity_check of the restored database: %q %v", check, err)
	}
	for _, cart := range carts {
		var units int
		if err := rdb.QueryRow(`SELECT COALESCE(SUM(quantity), 0) FROM stock_reservations WHERE cart_id = ? AND NOT expired`, cart).Scan(&units); err != nil {
			t.Fatal(err)
		}
		answered := 0
		for _, at := range acks[cart] {
			if at.Before(began) {
				answered++
			}
		}
		// Every add answered before the backup began is in it; an add
		// answered after it may be too (it committed before the
		// snapshot), but none that was never answered.
		if units < answered || units > len(acks[cart])+1 {
			t.Errorf("cart %s holds %d units in the backup; %d adds were answered before it began, %d in all", cart, units, answered, len(acks[cart]))
		}
	}
	bad, err := rdb.Query(`SELECT s.product_id, s.warehouse_id, s.reserved, COALESCE(SUM(r.quantity), 0)
		FROM stock s LEFT JOIN stock_reservations r ON r.product_id = s.product_id AND r.warehouse_id = s.warehouse_id AND NOT r.expired
		GROUP BY s.product_id, s.warehouse_id, s.reserved HAVING s.reserved <> COALESCE(SUM(r.quantity), 0)`)
	if err != nil {
		t.Fatal(err)
	}
	for bad.Next() {
		var p, wh string
		var reserved, sum int
		bad.Scan(&p, &wh, &reserved, &sum)
		t.Errorf("stock %s/%s: %d reserved, its active reservations hold %d", p, wh, reserved, sum)
	}
	bad.Close()
	rdb.Close()

	// serve starts on the restored database and takes writes.
	r := startChild(t, "sqlite:"+restored)
	defer r.stop(t)
	var info struct {
		Items []struct{ Quantity int }
	}
	first := ""
	for cart, a := range acks {
		if len(a) < 100 && a[0].Before(began) {
			first = cart
		}
	}
	must(r.base, "/cart/v1/cart.info", admin, map[string]any{"cartId": first}, "cart", &info)
	must(r.base, "/cart/v1/cart.addToCart", api, map[string]any{"cartId": first,
		"items": []map[string]any{{"productId": prod.ID, "quantity": 1, "warehouseId": "W1"}}}, "", nil)
	var after struct {
		Items []struct{ Quantity int }
	}
	must(r.base, "/cart/v1/cart.info", admin, map[string]any{"cartId": first}, "cart", &after)
	if len(info.Items) != 1 || len(after.Items) != 1 || after.Items[0].Quantity != info.Items[0].Quantity+1 {
		t.Errorf("the restored service: cart %+v, then %+v", info, after)
	}
}

// TestBackupCommands: the commands' refusals: PostgreSQL (naming its own
// tools), a missing file name, serve's schedule flags.
func TestBackupCommands(t *testing.T) {
	env := func(string) string { return "" }
	pg := "postgres://u@127.0.0.1:1/x"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"backup", "--db", pg, "--to", "x.db"}, "pg_dump"},
		{[]string{"restore", "--db", pg, "--from", "x.db"}, "pg_restore"},
		{[]string{"serve", "--db", pg, "--jwt-secret", crashSecret, "--backup-every", "1h"}, "pg_dump"},
		{[]string{"backup", "--db", "sqlite:" + filepath.Join(t.TempDir(), "c.db")}, "--to FILE is required"},
		{[]string{"restore", "--db", "sqlite:" + filepath.Join(t.TempDir(), "c.db")}, "--from FILE is required"},
		{[]string{"backup", "--db", "sqlite:" + filepath.Join(t.TempDir(), "none.db"), "--to", filepath.Join(t.TempDir(), "b.db")}, "no such file"},
		{[]string{"restore", "--db", "sqlite:" + filepath.Join(t.TempDir(), "c.db"), "--from", filepath.Join(t.TempDir(), "none.db")}, "not a usable backup"},
		{[]string{"serve", "--db", "sqlite:" + filepath.Join(t.TempDir(), "c.db"), "--backup-every", "1h", "--backup-keep", "0"}, "--backup-keep"},
	} {
		err := run(context.Background(), tc.args, env, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error naming %q", tc.args, err, tc.want)
		}
	}
}

// TestServeScheduledBackups: serve --backup-every takes backups into
// --backup-dir (COMMERCE_BACKUP_DIR here) and keeps --backup-keep.
func TestServeScheduledBackups(t *testing.T) {
	dir := t.TempDir()
	backups := filepath.Join(dir, "bk")
	_, stop := startServe(t, []string{"--db", "sqlite:" + filepath.Join(dir, "c.db"), "--jwt-secret", crashSecret,
		"--backup-every", "100ms", "--backup-keep", "2"}, map[string]string{"COMMERCE_BACKUP_DIR": backups})
	deadline := time.Now().Add(20 * time.Second)
	var names []string
	for time.Now().Before(deadline) {
		names = backupNames(t, backups)
		if len(names) == 2 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // more backups, the oldest removed
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	names = backupNames(t, backups)
	if len(names) != 2 {
		t.Fatalf("backups: %v, want 2", names)
	}
	for _, n := range names {
		if err := sqlite.Check(context.Background(), filepath.Join(backups, n)); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
}

// backupNames lists the scheduled backups in dir.
func backupNames(t *testing.T, dir string) []string {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(dir, sqlite.BackupPrefix+"*.db"))
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range matches {
		matches[i] = filepath.Base(m)
	}
	return matches
}
