/* glgemm-tfjs.d.ts: the types of glgemm-tfjs.js (docs/browser.md): TensorFlow.js's
 * webgl BatchMatMul and _FusedMatMul kernels through glgemm.  TensorFlow.js
 * (@tensorflow/tfjs-core, an optional peer dependency) is passed in, not
 * imported: these types ask only for the calls register() makes. */
import type {InitOptions} from './glgemm.js';

/** The part of the TensorFlow.js namespace register() uses. */
export interface TensorFlowLike {
    getKernel(kernelName: string, backendName: string): unknown;
    registerKernel(config: any): void;
    unregisterKernel(kernelName: string, backendName: string): void;
    findBackend(backendName: string): unknown;
}

export interface RegisterOptions {
    /** The variant (default: the portfolio's choice at 1024^3 where the module has one, else DEFAULT_VARIANT). */
    variant?: string;
    /** glgemm-gen.wasm, as init() takes it. */
    wasm?: InitOptions['wasm'];
    /** What a fallback is said with, once a reason (default console.warn). */
    warn?: (message: string) => void;
    /** Split as if the texture limit were this (tests). */
    maxTextureSize?: number;
    /** Multiply-adds a product below which a batch of separate products
     * runs TensorFlow.js's kernel (default 2^24; 0: glgemm serves them all). */
    batchedMin?: number;
}

export interface Registered {
    /** The variant that runs, or null where the context cannot serve (then reason). */
    variant: string | null;
    renderer?: string;
    reason?: string;
}

/** Replaces the webgl backend's BatchMatMul and _FusedMatMul with glgemm's. */
export declare function register(tf: TensorFlowLike, options?: RegisterOptions): Promise<Registered>;
/** Puts TensorFlow.js's own kernels back. */
export declare function unregister(): void;
/** What register() set up (calls served, calls passed to tfjs's kernel,
 * tensors held packed and their bytes), or null. */
export declare function registered(): {variant: string; served: number; fellBack: number; kept: number;
    keptBytes: number} | null;
