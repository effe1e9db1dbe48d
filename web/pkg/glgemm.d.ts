/* glgemm.d.ts: the types of glgemm.js, glgemm's WebGL2 runtime (docs/browser.md). */

/** The variant `glgemm export` wrote (the runtime's default). */
export declare const DEFAULT_VARIANT: string;
/** The exported portfolio (`glgemm export --portfolio`), else empty. */
export declare const PORTFOLIO: readonly string[];
/** The store=df variant matmul runs on Float64Arrays (`glgemm export` of a store=df variant sets it). */
export declare const DEFAULT_DF_VARIANT: string;

/** glgemm's statuses: what run() answers, what an Error carries. */
export type Status =
    | 'ok' | 'invalid' | 'unsupported' | 'context_lost' | 'compile_error' | 'link_error'
    | 'fbo_incomplete' | 'gl_error' | 'wrong_result' | 'skipped' | (string & {});

/** Every Error the runtime throws. */
export interface GlgemmError extends Error {
    status: Status;
    detail: string;
}

export interface InitOptions {
    /** glgemm-gen.wasm: a URL, its bytes or a compiled module (default: beside glgemm.js). */
    wasm?: string | URL | ArrayBuffer | ArrayBufferView | WebAssembly.Module;
}

/** Loads the generator (idempotent). */
export declare function init(options?: InitOptions): Promise<void>;

export interface MatmulOptions {
    alpha?: number;
    beta?: number;
    /** C0 (m x n), read when beta != 0 (as doubles when a and b are Float64Arrays). */
    c?: Float32Array | Float64Array | ArrayLike<number>;
    transa?: boolean;
    transb?: boolean;
    variant?: string;
    portfolio?: readonly string[];
    raceMs?: number;
}

/** Float64Arrays: C in double-float (store=df, about 48 bits; the variant
 * a store=df one, default DEFAULT_DF_VARIANT), a Float64Array.  One
 * Float64Array and one other array is an Error (status invalid). */
export declare function matmul(gl: WebGL2RenderingContext, a: Float64Array, b: Float64Array,
    m: number, n: number, k: number, options?: MatmulOptions): Promise<Float64Array>;
/** C = alpha op(A) op(B) + beta C0, m x n row-major, in fp32 (other arrays). */
export declare function matmul(gl: WebGL2RenderingContext, a: Float32Array | ArrayLike<number>,
    b: Float32Array | ArrayLike<number>, m: number, n: number, k: number,
    options?: MatmulOptions): Promise<Float32Array>;

export interface Limits {
    maxDrawBuffers: number;
    maxTextureSize: number;
    floatBlend: boolean;
    colorBufferFloat: boolean;
    vendor: string;
    renderer: string;
    unmaskedVendor: string | null;
    unmaskedRenderer: string | null;
    version: string;
    glsl: string;
    maxUniformBlockSize: number;
    uniformBufferOffsetAlignment: number;
}

export interface CheckResult {
    status: Status;
    detail: string;
    variant?: string;
}

export interface RunOptions {
    variant?: string;
    m: number;
    n: number;
    k: number;
    alpha?: number;
    beta?: number;
    transa?: boolean;
    transb?: boolean;
    /** Float64Arrays for a store=df variant (C then a Float64Array). */
    a: Float32Array | Float64Array | ArrayLike<number>;
    b: Float32Array | Float64Array | ArrayLike<number>;
    c?: Float32Array | Float64Array | ArrayLike<number>;
}

export interface RunResult {
    status: Status;
    detail: string;
    variant: string | null;
    passes: number;
    programCached: boolean;
    compileMs: number;
    buildMs: number;
    firstDrawMs: number;
    uploadMs: number;
    runMs: number;
    readbackMs: number;
    gflops: number;
    /** A Float64Array for a store=df variant. */
    c: Float32Array | Float64Array | null;
    log?: string;
}

/** A matrix already on the GPU in the dense RGBA layout: element i of the
 * stored matrices at texel i/4, channel i%4, texel t at (t % width, t / width). */
export interface DenseTexture {
    texture: WebGLTexture;
    width: number;
    /** Matrices stored back to back: 1 (serving every problem) or the batch. */
    batch?: number;
}

/** An operand read only when the runner must repack it: load() gives its
 * dense texture.  With keep (any object standing for the matrix's data,
 * which must not change while it is kept), an operand of batch 1 is packed
 * once and reused until runner.release(keep). */
export interface LazyDense {
    load: () => {texture: WebGLTexture; width: number};
    keep?: object;
    batch?: number;
}

/** A bias or PReLU weights: C[b][i][j]'s element at b*strides[0] + i*strides[1] + j*strides[2]. */
export interface BroadcastTexture {
    texture: WebGLTexture;
    width: number;
    strides: [number, number, number];
}

export type Activation = 'linear' | 'relu' | 'relu6' | 'elu' | 'leakyrelu' | 'prelu' | 'sigmoid';

export interface RunOnTexturesOptions {
    variant?: string;
    m: number;
    n: number;
    k: number;
    batch?: number;
    alpha?: number;
    transa?: boolean;
    transb?: boolean;
    a: DenseTexture | LazyDense;
    b: DenseTexture | LazyDense;
    bias?: BroadcastTexture;
    activation?: Activation;
    leakyreluAlpha?: number;
    preluWeights?: BroadcastTexture;
    /** Split as if the texture limit were this (tests). */
    maxTextureSize?: number;
}

export interface RunOnTexturesResult {
    status: Status;
    detail: string;
    variant: string | null;
    passes: number;
    /** C: R32F, width n, height batch*m, C[b][i][j] at (j, b*m + i); the runner's, until its next runOnTextures. */
    texture: WebGLTexture | null;
    width: number;
    height: number;
    /** Issuing the draws (no wait). */
    ms: number;
}

export interface Runner {
    limits(): Limits;
    check(variant: string, m?: number, n?: number, k?: number): CheckResult;
    run(options: RunOptions): Promise<RunResult>;
    /** Synchronous: GEMMs on textures already on this context (glgemm-tfjs.js's entry). */
    runOnTextures(options: RunOnTexturesOptions): RunOnTexturesResult;
    /** Forgets what keep kept (its packed textures deleted); true when it held any. */
    release(keep: object): boolean;
    /** The keep objects held (least recently used first), their bytes and the limit. */
    keptInfo(): {keys: object[]; bytes: number; limit: number};
    /** The most bytes kept operands may hold (default 256 MiB); past it the least recently used go. */
    setKeepBytes(n: number): void;
}

/** The context's runner (one per context; after init()). */
export declare function createRunner(gl: WebGL2RenderingContext): Runner;

export interface Raced {
    variant: string;
    status: Status;
    gflops: number;
    relErr: number | null;
    detail: string;
    ms?: number;
    compileMs?: number;
    buildMs?: number;
    firstDrawMs?: number;
}

export interface Choice {
    variant: string;
    fromMemory: boolean;
    raceMs: number;
    raced: Raced[];
    shapeClass: string;
    renderer: string;
    fallback: boolean;
}

export interface ChoiceOptions {
    portfolio?: readonly string[];
    raceMs?: number;
}

export declare function choice(gl: WebGL2RenderingContext, m: number, n: number, k: number,
    options?: ChoiceOptions): Promise<Choice>;
export declare function lastChoice(): Choice | null;
export declare function forgetChoices(): void;
