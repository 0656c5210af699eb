package app

import "commerce/rpc"

// areas registers every area's operations, in dependency order; each area
// adds its line here.
var areas = []func(a *App) error{
	func(a *App) error { rpc.RegisterEvents(a.srv, a.db); return nil },
}
