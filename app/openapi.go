package app

import "github.com/commercekit/commerce/rpc"

// RPC returns the service's RPC server: its operations and its API
// document (rpc.Server.Document, served at /openapi.json).
func (a *App) RPC() *rpc.Server { return a.srv }
