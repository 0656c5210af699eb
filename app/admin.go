package app

import (
	"github.com/commercekit/commerce/admin"
	"github.com/commercekit/commerce/audit"
	"github.com/commercekit/commerce/rpc"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/staff"
)

// assembleAdmin builds the staff accounts and the admin app, which calls
// the operations registered before it (it is the last of areas).
func assembleAdmin(a *App) error {
	a.Staff = staff.NewService(sqldb.NewStaffStore(a.db), a.now)
	if a.opts.StaffParams != nil {
		a.Staff.Params = *a.opts.StaffParams
	}
	a.Staff.Mail = a.Mail
	a.Staff.Require2FA = a.opts.AdminRequire2FA
	rpc.RegisterAudit(a.srv, audit.NewService(sqldb.NewAuditStore(a.db)))
	opts := admin.Options{RPC: a.srv, Staff: a.Staff, DB: a.db, Logger: a.logger, Now: a.now}
	opts.Media = a.Media
	opts.Locales = a.opts.Locales
	opts.Transfer = a.Transfer
	if a.Order != nil {
		opts.RefundQuote = a.Order.RefundQuote
	}
	h, err := admin.New(opts)
	if err != nil {
		return err
	}
	a.admin = h
	return nil
}
