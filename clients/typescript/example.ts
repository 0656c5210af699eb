// A storefront's checkout, typed by commerce.d.ts (generated from the
// service's /openapi.json by openapi-typescript). CI type-checks it with tsc:
// a change of the API that breaks this flow breaks the build.
import type { paths } from "./commerce";

type Post<P extends keyof paths> = paths[P] extends { post: infer O } ? O : never;
type Args<P extends keyof paths> =
  Post<P> extends { requestBody?: { content: { "application/json": infer B } } } ? B : never;
type Result<P extends keyof paths> =
  Post<P> extends { responses: { 200: { content: { "application/json": infer R } } } } ? R : never;

/** The error answer of every operation: {ok: false, error, data}. */
export class CommerceError extends Error {
  constructor(readonly status: number, readonly code: string, readonly data: unknown) {
    super(code);
  }
}

/** call POSTs the arguments to an operation and returns its typed answer. */
export async function call<P extends keyof paths>(base: string, token: string, path: P, args: Args<P>): Promise<Result<P>> {
  const res = await fetch(base + path, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify(args),
  });
  const body = await res.json();
  if (!body.ok) {
    throw new CommerceError(res.status, body.error, body.data);
  }
  return body as Result<P>;
}

/** checkout creates a cart, adds a product from a warehouse, ships it to an address by the first method offered and checks out. */
export async function checkout(base: string, token: string, productId: string, warehouseId: string): Promise<string> {
  const created = await call(base, token, "/cart/v1/cart.create", { currency: "USD", country: "US" });
  const cartId: string = created.cart.id;
  await call(base, token, "/cart/v1/cart.addToCart", { cartId, items: [{ productId, warehouseId, quantity: 2 }] });
  const shipping = await call(base, token, "/cart/v1/cart.setShippingAddress", {
    cartId,
    shippingAddress: {
      firstName: "Ada",
      lastName: "Lovelace",
      address_1: "1 Main Street",
      postCode: "96815",
      city: "Honolulu",
      state: "HI",
      country: "US",
    },
  });
  const methods = shipping.shippingMethods ?? [];
  if (methods.length === 0) {
    throw new Error("no shipping method for this address");
  }
  await call(base, token, "/cart/v1/cart.setShippingMethod", { cartId, methodId: methods[0].id });
  const done = await call(base, token, "/cart/v1/cart.checkout", {
    cartId,
    paymentId: "manual",
    paymentData: { reference: "PO-1" },
  });
  return done.cart.status;
}

/** The types require what the service requires: these calls do not type-check. */
export async function missingArguments(base: string, token: string, productId: string): Promise<void> {
  // @ts-expect-error: cartId is required
  await call(base, token, "/cart/v1/cart.addToCart", { items: [{ productId, warehouseId: "W1", quantity: 1 }] });
  // @ts-expect-error: an item's warehouseId is required
  await call(base, token, "/cart/v1/cart.addToCart", { cartId: "c", items: [{ productId, quantity: 1 }] });
  // @ts-expect-error: one of cartId and id is required
  await call(base, token, "/cart/v1/cart.info", {});
}
