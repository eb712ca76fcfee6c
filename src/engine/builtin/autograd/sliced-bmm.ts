// The gradient of wasm's sliced batched product (blocks.ts's bmm cuts the batch into 2D products):
// under a gradient tape tfjs would pad every slice's gradient back to the full batch (memory and
// time quadratic in the batch), so the product is wrapped as one custom-gradient op whose backward
// runs the same sliced products.
import * as tf from '@tensorflow/tfjs-core';

type Product = (a: tf.Tensor4D, b: tf.Tensor4D) => tf.Tensor4D;

/** A^T or B^T over the last two axes of a rank-4 tensor. */
function swapLast4(x: tf.Tensor4D): tf.Tensor4D {
  return tf.transpose(x, [0, 1, 3, 2]);
}

/** `product` with the gradient dA = dC B^T, dB = A^T dC computed by `product` itself. */
export function withSlicedGrad(product: Product): Product {
  return tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [a, b, save] = args as [tf.Tensor4D, tf.Tensor4D, tf.GradSaveFunc];
    save([a, b]);
    return {
      value: product(a, b),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [sa, sb] = saved as tf.Tensor4D[];
        return [product(dy as tf.Tensor4D, swapLast4(sb)), product(swapLast4(sa), dy as tf.Tensor4D)];
      },
    };
  }) as Product;
}
