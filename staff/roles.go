package staff

import (
	"slices"
	"strings"
)

// Role is what a staff member, an admin token or an admin client may do
// (docs/api.md section 28). Tokens and clients of scope admin without a
// role are RoleAdmin.
type Role string

// The roles, from the most to the least powerful.
const (
	// RoleOwner may do everything, staff included.
	RoleOwner Role = "owner"
	// RoleAdmin may do everything but staff.
	RoleAdmin Role = "admin"
	// RoleCatalog may change products, categories, media, price lists,
	// stock and import or export the catalog.
	RoleCatalog Role = "catalog"
	// RoleOrders may change orders, returns, drafts and customers, and
	// read the catalog.
	RoleOrders Role = "orders"
	// RoleSupport may read everything but staff, change customers'
	// addresses and resend mail.
	RoleSupport Role = "support"
)

// Roles lists the roles.
var Roles = []Role{RoleOwner, RoleAdmin, RoleCatalog, RoleOrders, RoleSupport}

// ParseRole returns the role named s ("" is RoleAdmin, the role of admin
// tokens that name none), and false for an unknown name.
func ParseRole(s string) (Role, bool) {
	if s == "" {
		return RoleAdmin, true
	}
	r := Role(s)
	return r, slices.Contains(Roles, r)
}

// Access is what a role may do with a resource.
type Access int

// Access levels: none, read, read and write.
const (
	None Access = iota
	Read
	Write
)

// Resources is THE permission table: for every resource (an operation
// name's prefix, "product" of "product.update"; an admin page's area),
// the access of each role, in the order of Roles (owner, admin, catalog,
// orders, support). Every check of the API (rpc, for admin tokens and
// clients) and of the admin app (its pages, and the operations they run)
// asks Allowed, which reads only this table and Exceptions.
var Resources = map[string][5]Access{
	//            owner  admin  catalog orders support
	"product":   {Write, Write, Write, Read, Read},
	"category":  {Write, Write, Write, Read, Read},
	"stock":     {Write, Write, Write, Read, Read},
	"media":     {Write, Write, Write, Read, Read},
	"priceList": {Write, Write, Write, Read, Read},
	"job":       {Write, Write, Write, None, Read}, // import jobs
	"order":     {Write, Write, None, Write, Read},
	"return":    {Write, Write, None, Write, Read},
	"draft":     {Write, Write, None, Write, Read},
	"cart":      {Write, Write, None, Write, Read},
	"customer":  {Write, Write, None, Write, Read},
	"group":     {Write, Write, None, Write, Read},
	"promotion": {Write, Write, None, Read, Read},
	"tax":       {Write, Write, None, Read, Read},
	"shipping":  {Write, Write, None, Read, Read},
	"webhook":   {Write, Write, None, None, Read},
	"event":     {Write, Write, None, None, Read},
	"mail":      {Write, Write, None, None, Read},
	"client":    {Write, Write, None, None, Read},
	"auth":      {Write, Write, None, Write, Read},
	"audit":     {Read, Read, None, None, None},
	"staff":     {Write, None, None, None, None},
}

// Exceptions are the operations whose access is not their resource's for
// their kind (read or write): the access each role has to them, in the
// order of Roles.
var Exceptions = map[string][5]Access{
	// Support changes customers' addresses and resends mail.
	"customer.addAddress":    {Write, Write, None, Write, Write},
	"customer.removeAddress": {Write, Write, None, Write, Write},
	"mail.resend":            {Write, Write, None, None, Write},
	// Importing and exporting the catalog is the catalog's role's.
	"product.import": {Write, Write, Write, None, None},
	"product.export": {Write, Write, Write, None, Read},
	// Orders' export reads orders.
	"order.export": {Write, Write, None, Write, Read},
	// Reads that are POST only (they compute, they change nothing).
	"tax.cartTaxes":            {Write, Write, None, Write, Read},
	"promotion.cartPromotions": {Write, Write, None, Write, Read},
	"mail.preview":             {Write, Write, None, None, Read},
	// A customer's personal data (GDPR article 15): those who manage
	// customers, not support.
	"customer.export":    {Write, Write, None, Write, None},
	"webhook.deliveries": {Write, Write, None, None, Read},
}

// ReadOps are the operations that read only although they are not
// declared Read (POST only, or a body too large for a query string).
var ReadOps = map[string]bool{
	"tax.cartTaxes": true, "promotion.cartPromotions": true, "mail.preview": true,
	"webhook.deliveries": true, "product.export": true, "order.export": true,
	"cart.calculateCart": true, "customer.export": true,
}

// Resource is the resource of an operation or page action name: its
// prefix before the first dot.
func Resource(op string) string {
	res, _, _ := strings.Cut(op, ".")
	return res
}

// index is the position of a role in Roles, or -1.
func (r Role) index() int { return slices.Index(Roles, r) }

// Allowed reports whether the role may run the operation (or page action)
// op, which writes when write is true: the one check of roles. An unknown
// role may do nothing; an operation whose resource is not in Resources
// (one added without a row) only the owner and admins may run.
func Allowed(r Role, op string, write bool) bool {
	i := r.index()
	if i < 0 {
		return false
	}
	if ReadOps[op] {
		write = false
	}
	want := Read
	if write {
		want = Write
	}
	if a, ok := Exceptions[op]; ok {
		return a[i] >= want
	}
	a, ok := Resources[Resource(op)]
	if !ok {
		return r == RoleOwner || r == RoleAdmin
	}
	return a[i] >= want
}

// Can reports whether the role may read (write false) or change (write
// true) a resource: what the admin app shows.
func (r Role) Can(resource string, write bool) bool { return Allowed(r, resource, write) }
