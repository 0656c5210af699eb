package admin

// SetCategoryPaging sets how many categories one read gets (categoryPage)
// and how many are listed at most (maxCategoryOptions), for a test; the
// function returned restores them.
func SetCategoryPaging(page, most int) func() {
	oldPage, oldMost := categoryPage, maxCategoryOptions
	categoryPage, maxCategoryOptions = page, most
	return func() { categoryPage, maxCategoryOptions = oldPage, oldMost }
}
