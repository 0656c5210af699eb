//go:build pprof

package main

// Profiling build (go build -tags pprof ./cmd/commerce): net/http/pprof on
// the address in COMMERCE_PPROF_ADDR (for example 127.0.0.1:6060), with
// block and mutex profiles sampled, for finding where time goes under
// load. Never part of a release build.

import (
	"log"
	"net/http"
	_ "net/http/pprof"
	"os"
	"runtime"
)

func init() {
	addr := os.Getenv("COMMERCE_PPROF_ADDR")
	if addr == "" {
		return
	}
	runtime.SetBlockProfileRate(10000) // one sample per 10 µs blocked
	runtime.SetMutexProfileFraction(10)
	go func() { log.Println(http.ListenAndServe(addr, nil)) }()
}
