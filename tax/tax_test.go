package tax

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/money"
)

func rate(s string) money.Decimal {
	d, err := money.ParseDecimal(s)
	if err != nil {
		panic(err)
	}
	return d
}

func pct(code, title, r string) Tax {
	return Tax{ID: title, Code: code, Class: DefaultClass, Title: title, Rate: rate(r), IsPercentage: true}
}

func fixed(code, title, r string) Tax {
	return Tax{ID: title, Code: code, Class: DefaultClass, Title: title, Rate: rate(r)}
}

// one builds the result of an entry whose lines all have the net base nb.
func one(nb int64, lines ...Line) Result {
	r := Result{EntryID: "e1", BeforeTax: nb, Lines: lines}
	var details []string
	for _, l := range lines {
		r.Tax += l.Tax
		details = append(details, l.TaxDetail)
	}
	r.TaxDetail = strings.Join(details, ", ")
	return r
}

func TestCompute(t *testing.T) {
	vat := pct("vat", "VAT 21%", "21")
	tests := []struct {
		name      string
		entry     Entry
		taxes     []Tax
		precision int
		want      Result
	}{
		{
			name:  "net 21% on 100.00",
			entry: Entry{Quantity: 1, Amount: 100_00, IsNetPrice: true, TaxCode: "vat"},
			taxes: []Tax{vat}, precision: 2,
			want: one(100_00, Line{100_00, 21_00, "VAT 21%"}),
		},
		{
			name:  "gross 121.00 at 21%",
			entry: Entry{Quantity: 1, Amount: 121_00, TaxCode: "vat"},
			taxes: []Tax{vat}, precision: 2,
			want: one(100_00, Line{100_00, 21_00, "VAT 21%"}),
		},
		{
			name:  "gross single tax is base minus net",
			entry: Entry{Quantity: 1, Amount: 1_00, TaxCode: "vat"},
			taxes: []Tax{vat}, precision: 2,
			// net 100/1.21 = 82.64 -> 83, tax 17
			want: one(83, Line{83, 17, "VAT 21%"}),
		},
		{
			name:  "net rounds half away from zero",
			entry: Entry{Quantity: 1, Amount: 50, IsNetPrice: true, TaxCode: "vat"},
			taxes: []Tax{vat}, precision: 2,
			// 0.50 x 21% = 0.105 -> 0.11
			want: one(50, Line{50, 11, "VAT 21%"}),
		},
		{
			name:  "fixed 4 x quantity 3",
			entry: Entry{Quantity: 3, Amount: 30_00, TaxCode: "eco"},
			taxes: []Tax{fixed("eco", "Eco", "4")}, precision: 2,
			want: one(30_00, Line{30_00, 12_00, "Eco"}),
		},
		{
			name:  "fixed with decimals on a net price",
			entry: Entry{Quantity: 2, Amount: 10_00, IsNetPrice: true, TaxCode: "eco"},
			taxes: []Tax{fixed("eco", "Eco", "0.35")}, precision: 2,
			want: one(10_00, Line{10_00, 70, "Eco"}),
		},
		{
			name:  "fixed with more decimals than the currency rounds the line",
			entry: Entry{Quantity: 3, Amount: 30_00, TaxCode: "eco"},
			taxes: []Tax{fixed("eco", "Eco", "0.005")}, precision: 2,
			// 0.005 x 3 = 0.015 -> 0.02 (not 3 x 0.01)
			want: one(30_00, Line{30_00, 2, "Eco"}),
		},
		{
			name:  "two percentage taxes on a gross price",
			entry: Entry{Quantity: 1, Amount: 131_00, TaxCode: "vat"},
			taxes: []Tax{vat, pct("vat", "Surcharge 10%", "10")}, precision: 2,
			want: one(100_00, Line{100_00, 21_00, "VAT 21%"}, Line{100_00, 10_00, "Surcharge 10%"}),
		},
		{
			name:  "two percentage taxes on a gross price round per line",
			entry: Entry{Quantity: 1, Amount: 10_00, TaxCode: "vat"},
			taxes: []Tax{vat, pct("vat", "Surcharge 5.2%", "5.2")}, precision: 2,
			// exact net 1000/1.262 = 792.393; x 0.21 = 166.40 -> 166; x 0.052 = 41.20 -> 41;
			// beforeTax is the base less its included taxes: 1000 - 207 = 793
			want: one(7_93, Line{7_93, 1_66, "VAT 21%"}, Line{7_93, 41, "Surcharge 5.2%"}),
		},
		{
			name:  "lines are rounded from the exact net, not a rounded one",
			entry: Entry{Quantity: 1, Amount: 10_00, TaxCode: "vat"},
			taxes: []Tax{pct("vat", "VAT 10%", "10"), pct("vat", "Surcharge 5%", "5")}, precision: 2,
			// net 1000/1.15 = 869.565; x 0.10 = 86.96 -> 87; x 0.05 = 43.48 -> 43 (not 870 x 0.05 = 43.5 -> 44)
			want: one(8_70, Line{8_70, 87, "VAT 10%"}, Line{8_70, 43, "Surcharge 5%"}),
		},
		{
			name:  "gross tax rounds the tax, not the net",
			entry: Entry{Quantity: 1, Amount: 9_99, TaxCode: "vat"},
			taxes: []Tax{pct("vat", "VAT 20%", "20")}, precision: 2,
			// 9.99 - 9.99/1.2 = 1.665 -> 1.67; beforeTax 9.99 - 1.67 = 8.32
			want: one(8_32, Line{8_32, 1_67, "VAT 20%"}),
		},
		{
			name:  "gross tax of a tiny amount",
			entry: Entry{Quantity: 1, Amount: 3, TaxCode: "vat"},
			taxes: []Tax{pct("vat", "VAT 20%", "20")}, precision: 2,
			// 0.03 - 0.03/1.2 = 0.005 -> 0.01
			want: one(2, Line{2, 1, "VAT 20%"}),
		},
		{
			name:  "two percentage taxes on a net price",
			entry: Entry{Quantity: 1, Amount: 100_00, IsNetPrice: true, TaxCode: "vat"},
			taxes: []Tax{vat, pct("vat", "Surcharge 10%", "10")}, precision: 2,
			want: one(100_00, Line{100_00, 21_00, "VAT 21%"}, Line{100_00, 10_00, "Surcharge 10%"}),
		},
		{
			name:  "percentage and fixed on a gross price",
			entry: Entry{Quantity: 2, Amount: 24_20, TaxCode: "vat"},
			taxes: []Tax{vat, fixed("vat", "Eco", "0.50")}, precision: 2,
			want: one(20_00, Line{20_00, 4_20, "VAT 21%"}, Line{20_00, 1_00, "Eco"}),
		},
		{
			name:  "JPY net rounds to yen",
			entry: Entry{Quantity: 1, Amount: 1005, IsNetPrice: true, TaxCode: "jct"},
			taxes: []Tax{pct("jct", "JCT", "10")}, precision: 0,
			// 100.5 -> 101
			want: one(1005, Line{1005, 101, "JCT"}),
		},
		{
			name:  "JPY gross",
			entry: Entry{Quantity: 1, Amount: 1000, TaxCode: "jct"},
			taxes: []Tax{pct("jct", "JCT", "8")}, precision: 0,
			// net 925.93 -> 926
			want: one(926, Line{926, 74, "JCT"}),
		},
		{
			name:  "JPY fixed with decimals",
			entry: Entry{Quantity: 3, Amount: 3000, IsNetPrice: true, TaxCode: "eco"},
			taxes: []Tax{fixed("eco", "Eco", "2.5")}, precision: 0,
			want: one(3000, Line{3000, 8, "Eco"}),
		},
		{
			name:  "JOD net",
			entry: Entry{Quantity: 1, Amount: 1_005, IsNetPrice: true, TaxCode: "gst"},
			taxes: []Tax{pct("gst", "GST", "16")}, precision: 3,
			// 160.8 -> 161 fils
			want: one(1_005, Line{1_005, 161, "GST"}),
		},
		{
			name:  "JOD gross",
			entry: Entry{Quantity: 1, Amount: 10_000, TaxCode: "gst"},
			taxes: []Tax{pct("gst", "GST", "16")}, precision: 3,
			// net 8620.69 -> 8621
			want: one(8_621, Line{8_621, 1_379, "GST"}),
		},
		{
			name:  "JOD fixed",
			entry: Entry{Quantity: 3, Amount: 3_000, TaxCode: "eco"},
			taxes: []Tax{fixed("eco", "Eco", "0.0005")}, precision: 3,
			// 0.0015 JOD = 1.5 fils -> 2
			want: one(3_000, Line{3_000, 2, "Eco"}),
		},
		{
			name:  "zero amount gross",
			entry: Entry{Quantity: 1, TaxCode: "vat"},
			taxes: []Tax{vat}, precision: 2,
			want: one(0, Line{0, 0, "VAT 21%"}),
		},
		{
			name:  "zero amount net",
			entry: Entry{Quantity: 1, IsNetPrice: true, TaxCode: "vat"},
			taxes: []Tax{vat}, precision: 2,
			want: one(0, Line{0, 0, "VAT 21%"}),
		},
		{
			name:  "zero rate",
			entry: Entry{Quantity: 1, Amount: 10_00, TaxCode: "zero"},
			taxes: []Tax{pct("zero", "Exempt", "0")}, precision: 2,
			want: one(10_00, Line{10_00, 0, "Exempt"}),
		},
		{
			name:  "large net amount",
			entry: Entry{Quantity: 1, Amount: 9e15, IsNetPrice: true, TaxCode: "vat"},
			taxes: []Tax{vat}, precision: 2,
			want: one(9e15, Line{9e15, 1_890_000_000_000_000, "VAT 21%"}),
		},
		{
			name:  "large gross amount",
			entry: Entry{Quantity: 1, Amount: 9e15, TaxCode: "vat"},
			taxes: []Tax{vat}, precision: 2,
			// 9e15 / 1.21 = 7438016528925619.83
			want: one(7_438_016_528_925_620, Line{7_438_016_528_925_620, 1_561_983_471_074_380, "VAT 21%"}),
		},
		{
			name:  "large gross amount with two taxes",
			entry: Entry{Quantity: 1, Amount: 9e15, TaxCode: "vat"},
			taxes: []Tax{vat, pct("vat", "Other 4%", "4")}, precision: 2,
			want: one(7_200_000_000_000_000, Line{7_200_000_000_000_000, 1_512_000_000_000_000, "VAT 21%"},
				Line{7_200_000_000_000_000, 288_000_000_000_000, "Other 4%"}),
		},
		{
			name:  "discount reduces the base",
			entry: Entry{Quantity: 2, Amount: 100_00, Discount: 20_00, IsNetPrice: true, TaxCode: "vat"},
			taxes: []Tax{vat},
			want:  one(80_00, Line{80_00, 16_80, "VAT 21%"}), precision: 2,
		},
		{
			name:  "discount reduces a gross base",
			entry: Entry{Quantity: 2, Amount: 141_20, Discount: 20_20, TaxCode: "vat"},
			taxes: []Tax{vat}, precision: 2,
			want: one(100_00, Line{100_00, 21_00, "VAT 21%"}),
		},
		{
			name:  "discount above the amount leaves a zero base",
			entry: Entry{Quantity: 1, Amount: 10_00, Discount: 12_00, IsNetPrice: true, TaxCode: "vat"},
			taxes: []Tax{vat}, precision: 2,
			want: one(0, Line{0, 0, "VAT 21%"}),
		},
		{
			name:  "no tax for the code",
			entry: Entry{Quantity: 1, Amount: 100_00, TaxCode: "books"},
			taxes: []Tax{vat}, precision: 2,
			want: one(100_00, Line{100_00, 0, "no tax for code books"}),
		},
		{
			name:      "no tax for the default code",
			entry:     Entry{Quantity: 1, Amount: 100_00},
			precision: 2,
			want:      one(100_00, Line{100_00, 0, "no tax for code default"}),
		},
		{
			name:  "empty code means default",
			entry: Entry{Quantity: 1, Amount: 121_00},
			taxes: []Tax{vat, pct("default", "IVA", "21")}, precision: 2,
			want: one(100_00, Line{100_00, 21_00, "IVA"}),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.entry.ID = "e1"
			got, err := Compute([]Entry{tc.entry}, tc.taxes, tc.precision)
			if err != nil {
				t.Fatalf("Compute: %v", err)
			}
			if len(got) != 1 || !reflect.DeepEqual(got[0], tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestComputeEntries(t *testing.T) {
	taxes := []Tax{pct("vat", "VAT", "21"), pct("reduced", "Reduced", "10")}
	entries := []Entry{
		{ID: "a", Quantity: 1, Amount: 121_00, TaxCode: "vat"},
		{ID: "b", Quantity: 1, Amount: 110_00, TaxCode: "reduced"},
		{ID: "c", Quantity: 1, Amount: 5_00, TaxCode: "none"},
	}
	got, err := Compute(entries, taxes, 2)
	if err != nil {
		t.Fatalf("Compute: %v", err)
	}
	var ids []string
	for _, r := range got {
		ids = append(ids, r.EntryID)
	}
	if want := []string{"a", "b", "c"}; !slices.Equal(ids, want) {
		t.Fatalf("got entries %v, want %v", ids, want)
	}
	if got[1].Tax != 10_00 || got[1].BeforeTax != 100_00 {
		t.Errorf("got reduced %d/%d, want 1000/10000", got[1].Tax, got[1].BeforeTax)
	}
	if got[2].TaxDetail != "no tax for code none" {
		t.Errorf("got detail %q, want %q", got[2].TaxDetail, "no tax for code none")
	}
}

func TestComputeErrors(t *testing.T) {
	e := []Entry{{ID: "e1", Quantity: 100_000, Amount: 1, TaxCode: "x"}}
	tests := []struct {
		name  string
		taxes []Tax
	}{
		{"unregistered class", []Tax{{Code: "x", Class: "nope", Title: "X", IsPercentage: true}}},
		{"fixed tax too large", []Tax{fixed("x", "X", "900000000000000")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Compute(e, tc.taxes, 2); err == nil {
				t.Errorf("got no error, want one")
			} else if code := commerce.ErrorCode(err); code != commerce.EInternal {
				t.Errorf("got code %q, want %q", code, commerce.EInternal)
			}
		})
	}
}

func TestRegister(t *testing.T) {
	errBoom := errors.New("boom")
	Register("test-flat", CalculatorFunc(func(in Input, t Tax) (int64, error) {
		if t.Title == "fail" {
			return 0, errBoom
		}
		return in.Base / 11, nil
	}))
	if !slices.Contains(Classes(), "test-flat") || !slices.Contains(Classes(), DefaultClass) {
		t.Fatalf("got classes %v, want test-flat and default", Classes())
	}
	taxes := []Tax{pct("vat", "VAT", "21"), {Code: "vat", Class: "test-flat", Title: "Flat", IsPercentage: true, Rate: rate("0")}}
	got, err := Compute([]Entry{{Quantity: 1, Amount: 121_00, TaxCode: "vat"}}, taxes, 2)
	if err != nil {
		t.Fatalf("Compute: %v", err)
	}
	if want := int64(21_00 + 11_00); got[0].Tax != want {
		t.Errorf("got tax %d, want %d", got[0].Tax, want)
	}
	taxes[1].Title = "fail"
	if _, err := Compute([]Entry{{Quantity: 1, Amount: 1, TaxCode: "vat"}}, taxes, 2); !errors.Is(err, errBoom) {
		t.Errorf("got error %v, want %v", err, errBoom)
	}
	for _, tc := range []struct {
		name  string
		class string
		c     Calculator
	}{
		{"duplicate", "test-flat", CalculatorFunc(defaultTax)},
		{"empty class", "", CalculatorFunc(defaultTax)},
		{"nil calculator", "test-nil", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", tc.class)
				}
			}()
			Register(tc.class, tc.c)
		})
	}
}

func TestValidate(t *testing.T) {
	ok := pct("vat", "VAT", "21")
	tests := []struct {
		name     string
		edit     func(*Tax)
		problems []string // field names the problems start with; nil: valid
	}{
		{"valid", func(*Tax) {}, nil},
		{"fixed", func(t *Tax) { t.IsPercentage = false; t.Rate = rate("4.5") }, nil},
		{"zero rate", func(t *Tax) { t.Rate = money.Decimal{} }, nil},
		{"percentage above 100", func(t *Tax) { t.Rate = rate("150") }, nil},
		{"no code", func(t *Tax) { t.Code = " " }, []string{"code"}},
		{"no title", func(t *Tax) { t.Title = "" }, []string{"title"}},
		{"unknown class", func(t *Tax) { t.Class = "nope" }, []string{"class"}},
		{"no class", func(t *Tax) { t.Class = "" }, []string{"class"}},
		{"negative rate", func(t *Tax) { t.Rate = rate("-1") }, []string{"rate"}},
		{"several", func(t *Tax) { t.Code, t.Title, t.Class = "", "", "x" }, []string{"code", "title", "class"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tx := ok
			tc.edit(&tx)
			err := Validate(tx)
			if tc.problems == nil {
				if err != nil {
					t.Errorf("got %v, want nil", err)
				}
				return
			}
			if code := commerce.ErrorCode(err); code != commerce.EValidation {
				t.Fatalf("got code %q, want %q", code, commerce.EValidation)
			}
			problems, _ := commerce.ErrorData(err).([]string)
			var fields []string
			for _, p := range problems {
				f, _, _ := strings.Cut(p, ":")
				fields = append(fields, f)
			}
			if !slices.Equal(fields, tc.problems) {
				t.Errorf("got problems %q, want fields %v", problems, tc.problems)
			}
		})
	}
}
