"""Static allowlists for the guard (``guard.py``): plain Python data, no torch or triton import.

The guard runs in the judge's parent process, which never imports torch or triton, so everything it knows
about their namespaces lives here as literal names. ``tests/unit/test_guard.py`` compares these tables with
the installed torch and triton: every allowed name must exist, every allowed module name must be a module
listed in ``MODULES`` (and nothing else may be one), and every public name of torch, torch.nn,
torch.nn.functional, torch.cuda, triton and triton.language must be either allowed or refused here, so an
upgrade that adds names fails that test until someone decides about them.

Shape:

- ``MODULES``: dotted module -> the attribute names a candidate may use on it. A name ``M.x`` that is itself
  a key is a submodule (usable only as ``M.x.<name>``); any other listed name is an object (function, class,
  dtype, constant) whose own attributes fall under the object-attribute rules. Every key may be imported.
- ``REFUSED``: dotted name or ``fnmatch`` pattern -> why it is refused; only for messages and the drift test
  (anything not in ``MODULES`` is refused whether or not it has an entry).
- ``BUILTINS``: the builtins a candidate may name; ``BUILTIN_REASONS`` says why notable others are refused.
- ``REFUSED_ATTRIBUTES``: attribute names refused on any object (types are unknown statically, so this one
  is a denylist), plus ``HOOK_MARK``: any attribute whose name contains it.
- Class bases, decorators and context managers a candidate may use; the modules no reference import unlocks.
"""
from __future__ import annotations


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


# --- torch -------------------------------------------------------------------------------------------------

# Tensor ops of the torch namespace (ATen functions and torch.functional's), minus the refused ones below.
TORCH_OPS = _names("""
    abs abs_ absolute acos acos_ acosh acosh_ adaptive_avg_pool1d adaptive_max_pool1d add addbmm addcdiv addcmul
    addmm addmv addmv_ addr adjoint affine_grid_generator alias_copy all allclose alpha_dropout alpha_dropout_
    amax amin aminmax angle any arange arccos arccos_ arccosh arccosh_ arcsin arcsin_ arcsinh arcsinh_ arctan
    arctan2 arctan_ arctanh arctanh_ argmax argmin argsort argwhere as_strided as_strided_ as_strided_copy
    as_strided_scatter as_tensor asarray asin asin_ asinh asinh_ atan atan2 atan_ atanh atanh_ atleast_1d
    atleast_2d atleast_3d avg_pool1d baddbmm bartlett_window batch_norm batch_norm_backward_elemt
    batch_norm_backward_reduce batch_norm_elemt batch_norm_gather_stats batch_norm_gather_stats_with_counts
    batch_norm_stats batch_norm_update_stats bernoulli bilinear binary_cross_entropy_with_logits bincount
    binomial bitwise_and bitwise_left_shift bitwise_not bitwise_or bitwise_right_shift bitwise_xor
    blackman_window block_diag bmm broadcast_shapes broadcast_tensors broadcast_to bucketize can_cast
    cartesian_prod cat ccol_indices_copy cdist ceil ceil_ celu celu_ chain_matmul channel_shuffle cholesky
    cholesky_inverse cholesky_solve choose_qparams_optimized chunk clamp clamp_ clamp_max clamp_max_ clamp_min
    clamp_min_ clip clip_ clone col_indices_copy column_stack combinations complex concat concatenate conj
    conj_physical conj_physical_ constant_pad_nd conv1d conv2d conv3d conv_tbc conv_transpose1d conv_transpose2d
    conv_transpose3d convolution copysign corrcoef cos cos_ cosh cosh_ cosine_embedding_loss cosine_similarity
    count_nonzero cov cross crow_indices_copy ctc_loss cummax cummin cumprod cumsum cumulative_trapezoid deg2rad
    deg2rad_ dequantize det detach detach_ detach_copy diag diag_embed diagflat diagonal diagonal_copy
    diagonal_scatter diff digamma dist div divide dot dropout dropout_ dsmm dsplit dstack einsum embedding
    embedding_bag embedding_renorm_ empty empty_like empty_permuted empty_quantized empty_strided eq equal erf
    erf_ erfc erfc_ erfinv exp exp2 exp2_ exp_ expand_copy expm1 expm1_ eye fake_quantize_per_channel_affine
    fake_quantize_per_tensor_affine feature_alpha_dropout feature_alpha_dropout_ feature_dropout
    feature_dropout_ fill fill_ fix fix_ flatten flip fliplr flipud float_power floor floor_ floor_divide fmax
    fmin fmod frac frac_ frexp frobenius_norm full full_like fused_moving_avg_obs_fake_quant gather gcd gcd_ ge
    geqrf ger get_default_dtype get_device gradient greater greater_equal grid_sampler grid_sampler_2d
    grid_sampler_3d group_norm gru gru_cell gt hamming_window hann_window hardshrink heaviside
    hinge_embedding_loss histc histogram histogramdd hsmm hsplit hspmm hstack hypot i0 i0_ igamma igammac imag
    index_add index_copy index_fill index_put index_put_ index_reduce index_select indices_copy inner
    instance_norm int_repr inverse is_autocast_enabled is_complex is_conj is_distributed is_floating_point is_grad_enabled
    is_inference is_neg get_autocast_dtype
    is_nonzero is_same_size is_signed is_tensor isclose isfinite isin isinf isnan isneginf isposinf isreal istft
    kaiser_window kl_div kron kthvalue layer_norm lcm lcm_ ldexp ldexp_ le lerp less less_equal lgamma linspace
    lobpcg log log10 log10_ log1p log1p_ log2 log2_ log_ log_softmax logaddexp logaddexp2 logcumsumexp logdet
    logical_and logical_not logical_or logical_xor logit logit_ logspace logsumexp lstm lstm_cell lt lu lu_solve
    lu_unpack margin_ranking_loss masked_fill masked_scatter masked_select matmul matrix_exp matrix_power max
    max_pool1d max_pool1d_with_indices max_pool2d max_pool3d maximum mean median meshgrid min minimum mm mode
    moveaxis movedim msort mul multinomial multiply mv mvlgamma nan_to_num nan_to_num_ nanmean nanmedian
    nanquantile nansum narrow narrow_copy native_batch_norm native_channel_shuffle native_dropout
    native_group_norm native_layer_norm native_norm ne neg neg_ negative negative_ nextafter nonzero
    nonzero_static norm norm_except_dim normal not_equal nuclear_norm numel ones ones_like orgqr ormqr outer
    pairwise_distance pca_lowrank pdist permute permute_copy pinverse pixel_shuffle pixel_unshuffle poisson
    poisson_nll_loss polar polygamma positive pow prelu prod promote_types put q_per_channel_axis
    q_per_channel_scales q_per_channel_zero_points q_scale q_zero_point qr quantile quantize_per_channel
    quantize_per_tensor quantize_per_tensor_dynamic quantized_batch_norm quantized_gru_cell quantized_lstm_cell
    quantized_max_pool1d quantized_max_pool2d quantized_max_pool3d quantized_rnn_relu_cell
    quantized_rnn_tanh_cell rad2deg rad2deg_ rand rand_like randint randint_like randn randn_like randperm range
    ravel real reciprocal reciprocal_ relu relu_ remainder renorm repeat_interleave reshape resize_as_
    resize_as_sparse_ resolve_conj resolve_neg result_type rms_norm rnn_relu rnn_relu_cell rnn_tanh
    rnn_tanh_cell roll rot90 round round_ row_indices_copy row_stack rrelu rrelu_ rsqrt rsqrt_ rsub saddmm
    scalar_tensor scatter scatter_add scatter_reduce searchsorted segment_reduce select select_copy
    select_scatter selu selu_ sgn sigmoid sigmoid_ sign signbit sin sin_ sinc sinc_ sinh sinh_ slice_copy
    slice_inverse slice_scatter slogdet smm softmax sort sparse_bsc_tensor sparse_bsr_tensor
    sparse_compressed_tensor sparse_coo_tensor sparse_csc_tensor sparse_csr_tensor split split_copy
    split_with_sizes split_with_sizes_copy spmm sqrt sqrt_ square square_ squeeze squeeze_copy sspaddmm stack
    std std_mean stft sub subtract sum svd svd_lowrank swapaxes swapdims t t_copy take take_along_dim tan tan_
    tanh tanh_ tensor tensor_split tensordot threshold threshold_ tile topk trace transpose transpose_copy
    trapezoid trapz triangular_solve tril tril_indices triplet_margin_loss triu triu_indices true_divide trunc
    trunc_ unbind unbind_copy unflatten unfold_copy unique unique_consecutive unravel_index unsafe_chunk
    unsafe_split unsafe_split_with_sizes unsqueeze unsqueeze_copy values_copy vander var var_mean vdot
    view_as_complex view_as_complex_copy view_as_real view_as_real_copy view_copy vsplit vstack where xlogy
    xlogy_ zero_ zeros zeros_like
""")
TORCH_DTYPES = _names("""
    bfloat16 bit bits16 bits1x8 bits2x4 bits4x2 bits8 bool cdouble cfloat chalf complex128 complex32 complex64
    double float float16 float32 float4_e2m1fn_x2 float64 float8_e4m3fn float8_e4m3fnuz float8_e5m2
    float8_e5m2fnuz float8_e8m0fnu half int int1 int16 int2 int3 int32 int4 int5 int6 int64 int7 int8 long
    qint32 qint8 quint2x4 quint4x2 quint8 short uint1 uint16 uint2 uint3 uint32 uint4 uint5 uint6 uint64 uint7
    uint8
""")
# Layouts, memory formats, quantization schemes; Python-number constants; classes of everyday tensor code.
TORCH_CONSTANTS = _names("""
    channels_last channels_last_3d contiguous_format jagged legacy_contiguous_format per_channel_affine
    per_channel_affine_float_qparams per_channel_symmetric per_tensor_affine per_tensor_symmetric
    preserve_format sparse_bsc sparse_bsr sparse_coo sparse_csc sparse_csr strided
    e inf nan pi newaxis
""")
TORCH_CLASSES = _names("""
    Tensor Size device dtype finfo iinfo layout memory_format qscheme no_grad enable_grad inference_mode
""")
TORCH_SUBMODULES = _names("nn cuda fft linalg special autograd functional")
TORCH = TORCH_OPS | TORCH_DTYPES | TORCH_CONSTANTS | TORCH_CLASSES | TORCH_SUBMODULES

# torch.nn layer classes (nn.Module subclasses); DataParallel (threads over devices), SyncBatchNorm
# (distributed) and the deprecated Container are left out.
NN_LAYERS = _names("""
    AdaptiveAvgPool1d AdaptiveAvgPool2d AdaptiveAvgPool3d AdaptiveLogSoftmaxWithLoss AdaptiveMaxPool1d
    AdaptiveMaxPool2d AdaptiveMaxPool3d AlphaDropout AvgPool1d AvgPool2d AvgPool3d BCELoss BCEWithLogitsLoss
    BatchNorm1d BatchNorm2d BatchNorm3d Bilinear CELU CTCLoss ChannelShuffle CircularPad1d CircularPad2d
    CircularPad3d ConstantPad1d ConstantPad2d ConstantPad3d Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d
    ConvTranspose3d CosineEmbeddingLoss CosineSimilarity CrossEntropyLoss CrossMapLRN2d Dropout Dropout1d
    Dropout2d Dropout3d ELU Embedding EmbeddingBag FeatureAlphaDropout Flatten Fold FractionalMaxPool2d
    FractionalMaxPool3d GELU GLU GRU GRUCell GaussianNLLLoss GroupNorm Hardshrink Hardsigmoid Hardswish Hardtanh
    HingeEmbeddingLoss HuberLoss Identity InstanceNorm1d InstanceNorm2d InstanceNorm3d KLDivLoss L1Loss LPPool1d
    LPPool2d LPPool3d LSTM LSTMCell LayerNorm LazyBatchNorm1d LazyBatchNorm2d LazyBatchNorm3d LazyConv1d
    LazyConv2d LazyConv3d LazyConvTranspose1d LazyConvTranspose2d LazyConvTranspose3d LazyInstanceNorm1d
    LazyInstanceNorm2d LazyInstanceNorm3d LazyLinear LeakyReLU Linear LinearCrossEntropyLoss LocalResponseNorm
    LogSigmoid LogSoftmax MSELoss MarginRankingLoss MaxPool1d MaxPool2d MaxPool3d MaxUnpool1d MaxUnpool2d
    MaxUnpool3d Mish Module ModuleDict ModuleList MultiLabelMarginLoss MultiLabelSoftMarginLoss MultiMarginLoss
    MultiheadAttention NLLLoss NLLLoss2d PReLU PairwiseDistance ParameterDict ParameterList PixelShuffle
    PixelUnshuffle PoissonNLLLoss RMSNorm RNN RNNBase RNNCell RNNCellBase RReLU ReLU ReLU6 ReflectionPad1d
    ReflectionPad2d ReflectionPad3d ReplicationPad1d ReplicationPad2d ReplicationPad3d SELU Sequential SiLU
    Sigmoid SmoothL1Loss SoftMarginLoss Softmax Softmax2d Softmin Softplus Softshrink Softsign Tanh Tanhshrink
    Threshold Transformer TransformerDecoder TransformerDecoderLayer TransformerEncoder TransformerEncoderLayer
    TripletMarginLoss TripletMarginWithDistanceLoss Unflatten Unfold Upsample UpsamplingBilinear2d
    UpsamplingNearest2d ZeroPad1d ZeroPad2d ZeroPad3d
""")
TENSOR_CLASSES = frozenset({"torch.Tensor", "torch.nn.Parameter", "torch.nn.Buffer", "torch.nn.UninitializedParameter",
                            "torch.nn.UninitializedBuffer"})
NN = NN_LAYERS | _names("""
    Parameter Buffer UninitializedParameter UninitializedBuffer LinearCrossEntropyOptions functional init
""")
NN_FUNCTIONAL = _names("""
    ScalingType SwizzleType adaptive_avg_pool1d adaptive_avg_pool2d adaptive_avg_pool3d adaptive_max_pool1d
    adaptive_max_pool1d_with_indices adaptive_max_pool2d adaptive_max_pool2d_with_indices adaptive_max_pool3d
    adaptive_max_pool3d_with_indices affine_grid alpha_dropout avg_pool1d avg_pool2d avg_pool3d batch_norm
    bilinear binary_cross_entropy binary_cross_entropy_with_logits celu celu_ channel_shuffle conv1d conv2d
    conv3d conv_tbc conv_transpose1d conv_transpose2d conv_transpose3d cosine_embedding_loss cosine_similarity
    cross_entropy ctc_loss dropout dropout1d dropout2d dropout3d elu elu_ embedding embedding_bag
    feature_alpha_dropout fold fractional_max_pool2d fractional_max_pool2d_with_indices fractional_max_pool3d
    fractional_max_pool3d_with_indices gaussian_nll_loss gelu glu grid_sample group_norm grouped_mm
    gumbel_softmax hardshrink hardsigmoid hardswish hardtanh hardtanh_ hinge_embedding_loss huber_loss
    instance_norm interpolate kl_div l1_loss layer_norm leaky_relu leaky_relu_ linear linear_cross_entropy
    local_response_norm log_softmax logsigmoid lp_pool1d lp_pool2d lp_pool3d margin_ranking_loss max_pool1d
    max_pool1d_with_indices max_pool2d max_pool2d_with_indices max_pool3d max_pool3d_with_indices max_unpool1d
    max_unpool2d max_unpool3d mish mse_loss multi_head_attention_forward multi_margin_loss
    multilabel_margin_loss multilabel_soft_margin_loss native_channel_shuffle nll_loss normalize one_hot pad
    pairwise_distance pdist pixel_shuffle pixel_unshuffle poisson_nll_loss prelu relu relu6 relu_ rms_norm rrelu
    rrelu_ scaled_dot_product_attention scaled_grouped_mm scaled_mm selu selu_ sigmoid silu smooth_l1_loss
    soft_margin_loss softmax softmin softplus softshrink softsign tanh tanhshrink threshold threshold_
    triplet_margin_loss triplet_margin_with_distance_loss unfold upsample upsample_bilinear upsample_nearest
""")
NN_INIT = _names("""
    calculate_gain constant constant_ dirac dirac_ eye eye_ kaiming_normal kaiming_normal_ kaiming_uniform
    kaiming_uniform_ normal normal_ ones_ orthogonal orthogonal_ sparse sparse_ trunc_normal_ uniform uniform_
    xavier_normal xavier_normal_ xavier_uniform xavier_uniform_ zeros_
""")
# Device queries, synchronize (it can only slow the candidate down) and `with torch.cuda.device(x.device):`
# (launch on the input's device; the judge's worker has one). No streams, events, graphs, allocator or RNG.
TORCH_CUDA = _names("""
    current_device device device_count get_device_capability get_device_name get_device_properties
    is_available is_bf16_supported is_tf32_supported synchronize
""")
TORCH_FFT = _names("""
    fft fft2 fftfreq fftn fftshift hfft hfft2 hfftn ifft ifft2 ifftn ifftshift ihfft ihfft2 ihfftn irfft irfft2
    irfftn rfft rfft2 rfftfreq rfftn
""")
TORCH_LINALG = _names("""
    cholesky cholesky_ex cond cross det diagonal eig eigh eigvals eigvalsh householder_product inv inv_ex
    ldl_factor ldl_factor_ex ldl_solve lstsq lu lu_factor lu_factor_ex lu_solve matmul matrix_exp matrix_norm
    matrix_power matrix_rank multi_dot norm pinv qr slogdet solve solve_ex solve_triangular svd svdvals
    tensorinv tensorsolve vander vecdot vector_norm
""")
TORCH_SPECIAL = _names("""
    airy_ai bessel_j0 bessel_j1 bessel_y0 bessel_y1 chebyshev_polynomial_t chebyshev_polynomial_u
    chebyshev_polynomial_v chebyshev_polynomial_w digamma entr erf erfc erfcx erfinv exp2 expit expm1 gammainc
    gammaincc gammaln hermite_polynomial_h hermite_polynomial_he i0 i0e i1 i1e laguerre_polynomial_l
    legendre_polynomial_p log1p log_ndtr log_softmax logit logsumexp modified_bessel_i0 modified_bessel_i1
    modified_bessel_k0 modified_bessel_k1 multigammaln ndtr ndtri polygamma psi round scaled_modified_bessel_k0
    scaled_modified_bessel_k1 shifted_chebyshev_polynomial_t shifted_chebyshev_polynomial_u
    shifted_chebyshev_polynomial_v shifted_chebyshev_polynomial_w sinc softmax spherical_bessel_j0 xlog1py xlogy
    zeta
""")
TORCH_FUNCTIONAL = _names("""
    atleast_1d atleast_2d atleast_3d block_diag broadcast_shapes broadcast_tensors cartesian_prod cdist
    chain_matmul einsum istft lu meshgrid norm pca_lowrank split stft svd_lowrank tensordot unique
    unique_consecutive unravel_index
""")
# For backward kernels: class F(torch.autograd.Function) with static forward/backward; forward_ad for its one
# read-only query (whether an input carries a forward-mode tangent: a patch then falls back).
TORCH_AUTOGRAD = _names("Function forward_ad grad")   # grad: a backward with grad mode on, in torch
TORCH_FORWARD_AD = _names("unpack_dual")

# --- triton ------------------------------------------------------------------------------------------------

TRITON = _names("jit autotune heuristics Config cdiv next_power_of_2 language")
# Every name of triton.language.__all__ (its three submodules included).
TRITON_LANGUAGE = _names("""
    PropagateNan TRITON_MAX_TENSOR_NUMEL abs add arange argmax argmin associative_scan assume atomic_add
    atomic_and atomic_cas atomic_load atomic_max atomic_min atomic_or atomic_poll atomic_store atomic_xchg
    atomic_xor bfloat16 bitonic_merge block_type broadcast broadcast_to cast cat cdiv ceil clamp condition const
    constexpr constexpr_type cos cumprod cumsum debug_barrier device_assert device_print div_rn dot dot_scaled
    dtype erf exp exp2 expand_dims expect_zero fdiv flip float16 float32 float64 float8e4b15 float8e4b8
    float8e4nv float8e5 float8e5b16 floor fma full gather histogram int1 int16 int32
    int64 int8 interleave join load load_tensor_descriptor log log2 make_block_ptr make_tensor_descriptor
    map_elementwise max max_constancy max_contiguous maximum min minimum mul multiple_of num_programs
    pair_uniform_to_normal permute philox philox_impl pi32_t program_id rand rand4x randint
    randint4x randn randn4x range ravel reduce reduce_or reshape rsqrt sigmoid sin slice softmax sort split sqrt
    sqrt_rn squeeze static_assert static_print static_range store store_tensor_descriptor sub sum swizzle2d
    tensor tensor_descriptor to_tensor topk trans tuple uint16 uint32 uint64 uint8 uint_to_uniform_float umulhi
    unsqueeze view void where xor_sum zeros zeros_like
    extra math target_info
""")
TRITON_LANGUAGE_MATH = _names("""
    abs ceil cos div_rn erf exp exp2 fdiv floor fma log log2 rsqrt sin sqrt sqrt_rn umulhi
""")
TRITON_TARGET_INFO = _names("cuda_capability_geq is_cuda is_hip is_hip_cdna3 is_hip_cdna4 is_hip_gfx1250")
LIBDEVICE = _names("""
    abs acos acosh add_rd add_rn add_ru add_rz asin asinh atan atan2 atanh brev byte_perm cbrt ceil clz copysign
    cos cosh cospi cyl_bessel_i0 cyl_bessel_i1 div_rd div_rn div_ru div_rz double2float_rd double2float_rn
    double2float_ru double2float_rz double2hiint double2int_rd double2int_rn double2int_ru double2int_rz
    double2ll_rd double2ll_rn double2ll_ru double2ll_rz double2loint double2uint_rd double2uint_rn
    double2uint_ru double2uint_rz double2ull_rd double2ull_rn double2ull_ru double2ull_rz double_as_longlong erf
    erfc erfcinv erfcx erfinv exp exp10 exp2 expm1 fast_cosf fast_dividef fast_exp10f fast_expf fast_log10f
    fast_log2f fast_logf fast_powf fast_sinf fast_tanf fast_tanhf fdim ffs finitef float2int_rd float2int_rn
    float2int_ru float2int_rz float2ll_rd float2ll_rn float2ll_ru float2ll_rz float2uint_rd float2uint_rn
    float2uint_ru float2uint_rz float2ull_rd float2ull_rn float2ull_ru float2ull_rz float_as_int float_as_uint
    floor fma fma_rd fma_rn fma_ru fma_rz fmod hadd hiloint2double hypot ilogb int2double_rn int2float_rd
    int2float_rn int2float_ru int2float_rz int_as_float isfinited isinf isnan j0 j1 jn ldexp lgamma ll2double_rd
    ll2double_rn ll2double_ru ll2double_rz ll2float_rd ll2float_rn ll2float_ru ll2float_rz llrint llround log
    log10 log1p log2 logb longlong_as_double mul24 mul_rd mul_rn mul_ru mul_rz mulhi nearbyint nextafter norm3d
    norm4d normcdf normcdfinv popc pow rcbrt rcp64h rcp_rd rcp_rn rcp_ru rcp_rz remainder rhadd rhypot rint
    rnorm3d rnorm4d round rsqrt rsqrt_rn sad saturatef scalbn signbit sin sinh sinpi sqrt sqrt_rd sqrt_rn
    sqrt_ru sqrt_rz sub_rd sub_rn sub_ru sub_rz tan tanh tgamma trunc uint2double_rn uint2float_rd uint2float_rn
    uint2float_ru uint2float_rz uint_as_float ull2double_rd ull2double_rn ull2double_ru ull2double_rz
    ull2float_rd ull2float_rn ull2float_ru ull2float_rz y0 y1 yn
""")
CUDA_LIBDEVICE = LIBDEVICE - {"fast_tanhf"}

# --- standard library --------------------------------------------------------------------------------------

MATH = _names("""
    acos acosh asin asinh atan atan2 atanh cbrt ceil comb copysign cos cosh degrees dist e erf erfc exp exp2
    expm1 fabs factorial floor fmod frexp fsum gamma gcd hypot inf isclose isfinite isinf isnan isqrt lcm ldexp
    lgamma log log10 log1p log2 modf nan nextafter perm pi pow prod radians remainder sin sinh sqrt tan tanh tau
    trunc ulp
""")
# Annotations only: no get_type_hints / ForwardRef (they evaluate annotation strings), no class factories.
TYPING = _names("""
    Any Callable ClassVar Dict Final FrozenSet Iterable Iterator List Literal Mapping Optional Sequence Set Tuple
    Type Union TYPE_CHECKING cast
""")
FUTURE = _names("""
    absolute_import annotations division generator_stop generators nested_scopes print_function unicode_literals
    with_statement
""")
# The functions torch.fx writes into captured graphs (the built-in proposer emits operator.getitem, ...).
# Not attrgetter / methodcaller (a string path walks attributes the guard never sees), itemgetter, call,
# setitem / delitem (mutation through a function value).
OPERATOR = _names("""
    abs add and_ concat contains eq floordiv ge getitem gt iadd iand iconcat ifloordiv ilshift imatmul imod imul
    index inv invert ior ipow irshift is_ is_not isub itruediv ixor le lshift lt matmul mod mul ne neg not_ or_
    pos pow rshift sub truediv truth xor
""")
ITERTOOLS = _names("""
    accumulate chain combinations combinations_with_replacement islice pairwise permutations product repeat
    zip_longest
""")

MODULES: dict[str, frozenset[str]] = {
    "torch": TORCH,
    "torch.nn": NN,
    "torch.nn.functional": NN_FUNCTIONAL,
    "torch.nn.init": NN_INIT,
    "torch.cuda": TORCH_CUDA,
    "torch.fft": TORCH_FFT,
    "torch.linalg": TORCH_LINALG,
    "torch.special": TORCH_SPECIAL,
    "torch.functional": TORCH_FUNCTIONAL,
    "torch.autograd": TORCH_AUTOGRAD,
    "torch.autograd.forward_ad": TORCH_FORWARD_AD,
    "triton": TRITON,
    "triton.language": TRITON_LANGUAGE,
    "triton.language.math": TRITON_LANGUAGE_MATH,
    "triton.language.target_info": TRITON_TARGET_INFO,
    "triton.language.extra": _names("cuda libdevice"),
    "triton.language.extra.cuda": _names("libdevice"),
    "triton.language.extra.libdevice": LIBDEVICE,
    "triton.language.extra.cuda.libdevice": CUDA_LIBDEVICE,
    "math": MATH,
    "typing": TYPING,
    "__future__": FUTURE,
    "operator": OPERATOR,
    "itertools": ITERTOOLS,
}

# The import allowlist in one line, for messages.
IMPORT_SUMMARY = ("torch, torch.nn, torch.nn.functional, torch.nn.init, torch.cuda, torch.fft, torch.linalg, "
                  "torch.special, torch.autograd, torch.autograd.forward_ad, triton, triton.language (and its "
                  "math, extra.libdevice), math, typing, operator, itertools, __future__")

# What to use instead, per module, for the generic "not on the allowlist" message.
MODULE_HINTS = {
    "torch": "use tensor creation, math, reduction and shape ops, dtypes, torch.nn or your own Triton kernels",
    "torch.nn": "use the torch.nn layer classes, Module/ModuleList/ModuleDict/Sequential and Parameter",
    "torch.cuda": "only device queries (is_available, device_count, current_device, get_device_properties, "
                  "...) and synchronize are allowed",
    "torch.autograd": "only torch.autograd.Function (for a backward kernel), torch.autograd.grad (a backward that "
                      "is itself differentiable) and torch.autograd.forward_ad.unpack_dual (to fall back on "
                      "forward-mode AD) are allowed",
    "torch.autograd.forward_ad": "only unpack_dual is allowed (read a tangent: fall back when there is one)",
    "triton": "use triton.jit, triton.autotune, triton.heuristics, triton.Config, triton.cdiv, "
              "triton.next_power_of_2 and triton.language",
    "triton.language": "check the name: triton.language has no such function",
    "typing": "typing is for annotations only",
}

# --- refusals with reasons (messages and drift test) -------------------------------------------------------

_RNG = "it touches the global random-number generator that the judge seeds"
_SEED = "it seeds the global RNG (the judge seeds it itself, for the reference's inputs too)"
_SETTINGS = "it changes or reads torch's global settings, which the reference runs under too"
_PRECISION = "it lowers precision behind the reference's back (fp32 accuracy is required: no autocast, no TF32)"
_COMPILE = "it hands the work to a compiler or tracer instead of the candidate's own Triton kernels"
_FILES = "it reads or writes files"
_STORAGE = "it reaches raw storage, foreign arrays or shared memory around the tensor API"
_STREAMS = "it uses streams or events that the judge's timer would not see"
_GRAPHS = "it captures or detects CUDA graphs (the judge manages graphs and streams)"
_ALLOCATOR = "it manipulates or inspects the allocator the judge relies on"
_MODES = ("torch-function modes and dispatch hooks (__torch_function__, __torch_dispatch__) intercept every torch "
          "call, the reference's included")
_OPS = "it calls or registers library operators directly, around the allowlist"
_INTERNAL = "it is TorchScript / runtime machinery, not tensor math"
_BACKEND = "it is a backend-specific entry point: call the public op (torch.conv2d, F.linear, ...) instead"
_PROCESSES = "it starts or talks to other processes"
_PROFILER = "profilers and tracers observe the judge itself"
_EXCEPTIONS = "exception classes are not needed: a candidate may not catch exceptions"
_IMPORTED = "it is a module that the package imports for itself, not part of its API"
_PACKAGE = "it is a torch package outside the tensor-math allowlist"
_TYPING = "it is a typing helper the package imports for itself; import typing names from typing"

TORCH_IMPORTED_MODULES = _names("builtins ctypes functools glob importlib inspect math os platform sys textwrap "
                                "threading torch types warnings")
TORCH_PYBIND_TYPES = _names("""
    AggregationType AliasDb AnyType Argument ArgumentSpec AwaitType BenchmarkConfig BenchmarkExecutionStats
    Block BoolType BufferDict CallStack Capsule ClassType Code CompilationUnit CompleteArgumentSpec ComplexType
    ConcreteModuleType ConcreteModuleTypeBuilder DeepCopyMemoTable DeserializationStorageContext DeviceObjType
    DictType DispatchKey DispatchKeySet EnumType ErrorReport ExcludeDispatchKeyGuard ExecutionPlan FileCheck
    FloatType FunctionSchema Future FutureType Gradient Graph GraphExecutorState IODescriptor InferredType
    IntType InterfaceType ListType LiteScriptModule LockingLogger LoggerBase ModuleDict Node NoneType NoopLogger
    NumberType OperatorInfo OptionalType ParameterDict PyObjectType PyTorchFileReader PyTorchFileWriter RRefType
    ScriptClass ScriptClassFunction ScriptDict ScriptDictIterator ScriptDictKeyIterator ScriptFunction
    ScriptList ScriptListIterator ScriptMethod ScriptModule ScriptModuleSerializer ScriptObject
    ScriptObjectProperty SerializationStorageContext StaticModule StreamObjType StringType SymBoolType
    SymIntType Tag TensorType ThroughputBenchmark TracingState TupleType Type UnionType Use Value
""")

REFUSED: dict[str, str] = {
    # triton: integers cast to pointers read and write any memory (the interpreter's: the judge's own objects)
    "triton.language.pointer_type": "casting integers to pointers reads and writes any memory; index tensors "
                                    "through the pointers the launcher passes",
    # torch: the random-number generator
    **dict.fromkeys(["torch.manual_seed", "torch.seed"], _SEED),
    **dict.fromkeys(["torch.initial_seed", "torch.get_rng_state",
                     "torch.set_rng_state", "torch.default_generator", "torch.Generator", "torch.random",
                     "torch.quasirandom"], _RNG),
    # torch: precision and global settings
    **dict.fromkeys(["torch.*autocast*", "torch.amp", "torch.GradScaler", "torch.get_float32_matmul_precision",
                     "torch.set_float32_matmul_precision"], _PRECISION),
    "torch.set_grad_enabled": _SETTINGS + " (use 'with torch.no_grad():' instead)",
    **dict.fromkeys(["torch.set_*", "torch.use_deterministic_algorithms", "torch.are_deterministic_algorithms_enabled",
                     "torch.is_deterministic_algorithms_warn_only_enabled", "torch.get_deterministic_debug_mode",
                     "torch.is_warn_always_enabled", "torch.is_inference_mode_enabled",
                     "torch.get_num_threads", "torch.get_num_interop_threads", "torch.init_num_threads",
                     "torch.get_default_device", "torch.is_anomaly*"], _SETTINGS),
    "torch.backends": "torch.backends holds global flags (TF32, cuDNN algorithms) that change the reference's "
                      "numerics too",
    # torch: other compilers
    **dict.fromkeys(["torch.compile", "torch.compiler", "torch.cond", "torch.while_loop", "torch.vmap", "torch.func",
                     "torch.jit", "torch.fx", "torch.export"], _COMPILE),
    **dict.fromkeys(["torch.fork", "torch.wait", "torch.futures"],
                    "it runs work asynchronously (TorchScript futures), outside the judge's timer"),
    # torch: files, raw memory, streams, modes, operator registries
    **dict.fromkeys(["torch.save", "torch.load", "torch.serialization", "torch.get_file_path", "torch.from_file",
                     "torch.PyTorchFileReader", "torch.PyTorchFileWriter", "torch.hub", "torch.package"], _FILES),
    **dict.fromkeys(["torch.*Storage", "torch.StorageBase", "torch.is_storage", "torch.storage", "torch.frombuffer",
                     "torch.from_numpy", "torch.to_dlpack", "torch.from_dlpack"], _STORAGE),
    **dict.fromkeys(["torch.Stream", "torch.Event"], _STREAMS),
    "torch.get_device_module": "it returns a device module (torch.cuda) as a value, which the guard cannot follow; "
                               "write torch.cuda.<name>",
    **dict.fromkeys(["torch.overrides", "torch.DisableTorchFunction", "torch.DisableTorchFunctionSubclass"], _MODES),
    **dict.fromkeys(["torch.library", "torch.ops", "torch.classes"], _OPS),
    "torch.utils": "torch.utils reaches C++ extension builds, data-loader workers, DLPack and hooks",
    **dict.fromkeys(["torch.multiprocessing", "torch.distributed"], _PROCESSES),
    **dict.fromkeys(["torch.profiler", "torch.monitor"], _PROFILER),
    "torch.hash_tensor": "a hash of the values lets code cache results keyed on the inputs",
    **dict.fromkeys(["torch.cudnn_*", "torch.miopen_*", "torch.mkldnn_*", "torch.fbgemm_*"], _BACKEND),
    **dict.fromkeys(["torch.eig", "torch.lstsq", "torch.matrix_rank", "torch.solve", "torch.symeig"],
                    "it was removed from torch; use torch.linalg.<name>"),
    "torch.*Tensor": "legacy tensor types: use torch.empty(..., dtype=...) or torch.Tensor",
    **dict.fromkeys(["torch.AcceleratorError", "torch.FatalError", "torch.JITException", "torch.OutOfMemoryError"],
                    _EXCEPTIONS),
    **dict.fromkeys(["torch.sym_*", "torch.import_ir_module*", "torch.parse_*", "torch.merge_type_from_type_comment",
                     "torch.unify_type_list", "torch.compiled_with_cxx11_abi",
                     "torch.prepare_multiprocessing_environment",
                     "torch.profiler_allow_cudagraph_cupti_lazy_reinit_cuda12", "torch.thread_safe_generator",
                     "torch.classproperty", "torch.typename", "torch.TYPE_CHECKING", "torch.USE_GLOBAL_DEPS",
                     "torch.USE_RTLD_GLOBAL_WITH_LIBTORCH", "torch.has_lapack", "torch.has_mkl", "torch.has_openmp",
                     "torch.has_spectral", "torch.PRIVATE_OPS", "torch.quantized_gru", "torch.quantized_lstm",
                     "torch.AVG", "torch.SUM", "torch.SymBool", "torch.SymFloat", "torch.SymInt",
                     "torch.is_vulkan_available"], _INTERNAL),
    **{f"torch.{name}": _INTERNAL for name in TORCH_PYBIND_TYPES},
    **{f"torch.{name}": _IMPORTED for name in TORCH_IMPORTED_MODULES},
    **dict.fromkeys([f"torch.{name}" for name in "accelerator ao contrib cpp cpu distributions masked mps mtia "
                     "nativert nested numa onnx optim quantization return_types signal sparse testing torch_version "
                     "types version windows xpu"
                     .split()], _PACKAGE),
    # torch.nn
    "torch.nn.modules": "torch.nn.modules holds the global hook registries (register_module_forward_hook, ...); "
                        "use torch.nn.<Layer>",
    "torch.nn.DataParallel": "it replicates the module over devices in threads",
    "torch.nn.SyncBatchNorm": _PROCESSES,
    "torch.nn.Container": "a deprecated class; use torch.nn.Module",
    "torch.nn.utils": "torch.nn.utils (parametrize, stateless, spectral_norm, ...) rewires modules behind their "
                      "backs",
    "torch.nn.attention": "it selects attention backends globally",
    **dict.fromkeys([f"torch.nn.{name}" for name in "parameter parallel grad intrinsic qat quantizable quantized "
                     "common_types factory_kwargs backends cpp".split()],
                    "it is a torch.nn internal; use torch.nn.<name>"),
    # torch.nn.functional
    **dict.fromkeys([f"torch.nn.functional.{name}" for name in "dataclasses grad importlib math np torch warnings"
                     .split()], _IMPORTED),
    **dict.fromkeys(["torch.nn.functional.has_torch_function*", "torch.nn.functional.handle_torch_function",
                     "torch.nn.functional.boolean_dispatch"], _MODES),
    **dict.fromkeys([f"torch.nn.functional.{name}" for name in "assert_int_or_pair BroadcastingList1 "
                     "BroadcastingList2 BroadcastingList3 Callable DType Optional TYPE_CHECKING Tensor "
                     "GRID_SAMPLE_INTERPOLATION_MODES GRID_SAMPLE_PADDING_MODES reproducibility_notes "
                     "sparse_support_notes tf32_notes".split()], _TYPING),
    # torch.cuda
    **dict.fromkeys([f"torch.cuda.{name}" for name in "Stream ExternalStream StreamContext stream streams "
                     "current_stream default_stream set_stream get_stream_from_external Event".split()], _STREAMS),
    **dict.fromkeys([f"torch.cuda.{name}" for name in "CUDAGraph graph graphs make_graphed_callables "
                     "graph_pool_handle is_current_stream_capturing".split()], _GRAPHS),
    **dict.fromkeys(["torch.cuda.memory*", "torch.cuda.max_memory*", "torch.cuda.reset_*", "torch.cuda.empty_cache",
                     "torch.cuda.caching_allocator_*", "torch.cuda.CUDAPluggableAllocator",
                     "torch.cuda.change_current_allocator", "torch.cuda.MemPool", "torch.cuda.use_mem_pool",
                     "torch.cuda.get_allocator_backend", "torch.cuda.*_per_process_memory_fraction",
                     "torch.cuda.mem_get_info", "torch.cuda.host_memory_stats*", "torch.cuda.ipc_collect",
                     "torch.cuda.list_gpu_processes", "torch.cuda.device_memory_used"], _ALLOCATOR),
    **dict.fromkeys([f"torch.cuda.{name}" for name in "manual_seed manual_seed_all seed seed_all initial_seed "
                     "get_rng_state get_rng_state_all set_rng_state set_rng_state_all default_generators random"
                     .split()], _RNG),
    **dict.fromkeys([f"torch.cuda.{name}" for name in "set_device device_of set_sync_debug_mode "
                     "get_sync_debug_mode init is_initialized tunable".split()],
                    "it changes or reads the CUDA context's settings"),
    "torch.cuda.amp": _PRECISION,
    "torch.cuda.jiterator": "it compiles CUDA C++ at run time instead of Triton",
    **dict.fromkeys(["torch.cuda.nvtx", "torch.cuda.profiler"], _PROFILER),
    **dict.fromkeys(["torch.cuda.nccl", "torch.cuda.comm"], _PROCESSES),
    **dict.fromkeys([f"torch.cuda.{name}" for name in "os platform threading traceback warnings importlib torch"
                     .split()], _IMPORTED),
    **dict.fromkeys([f"torch.cuda.{name}" for name in "AcceleratorError CudaError DeferredCudaCallError "
                     "OutOfMemoryError".split()], _EXCEPTIONS),
    **dict.fromkeys([f"torch.cuda.{name}" for name in "Any Callable Device NewType Optional TYPE_CHECKING cast "
                     "classproperty lru_cache".split()], _TYPING),
    **dict.fromkeys(["torch.cuda.*Storage", "torch.cuda.*Tensor"], "legacy storage and tensor types: use "
                                                                   "torch.empty(..., device='cuda')"),
    **dict.fromkeys([f"torch.cuda.{name}" for name in "gds green_contexts GreenContext cudart check_error "
                     "cudaStatus current_blas_handle current_solver_handle can_device_access_peer clock_rate "
                     "power_draw temperature utilization memory_usage get_arch_list get_gencode_flags has_half "
                     "has_magma DEVICE_REQUIREMENT PYTORCH_RELEASES_CODE_CC sparse".split()],
                    "it is CUDA runtime machinery, not tensor math"),
    # triton
    "triton.compile": _COMPILE,
    "triton.runtime": "triton.runtime is the launcher's machinery (driver, caches, autotuner internals); for the "
                      "device use x.device, for its properties torch.cuda.get_device_properties",
    **dict.fromkeys(["triton.compiler", "triton.backends", "triton.tools", "triton.JITFunction",
                     "triton.KernelInterface", "triton.AsyncCompileMode", "triton.FutureKernel",
                     "triton.constexpr_function", "triton.must_use_result", "triton.aggregate", "triton.MockTensor",
                     "triton.TensorWrapper", "triton.reinterpret"],
                    "it is Triton's compiler / launcher machinery; write kernels with @triton.jit"),
    "triton.knobs": "triton.knobs holds Triton's global settings (caches, hooks, interpreter flags)",
    "triton.testing": "triton.testing benchmarks and asserts; the judge does the timing",
    **dict.fromkeys(["triton.experimental", "triton.profiler"], "it is outside triton's stable kernel API"),
    "triton.set_allocator": "it installs a global allocator",
    **dict.fromkeys(["triton.errors", "triton.CompilationError", "triton.InterpreterError", "triton.OutOfResources",
                     "triton.TritonError"], _EXCEPTIONS),
    **dict.fromkeys([f"triton.language.{name}" for name in "core random standard semantic str_to_ty aggregate_replace "
                     "tensor_descriptor_type tuple_type".split()],
                    "it is a triton.language internal; use the triton.language.<name> API"),
    **dict.fromkeys(["triton.language.extra.cuda.globaltimer", "triton.language.extra.cuda.smid"],
                    "a kernel may not read the GPU clock or its SM id (it could time itself)"),
    "triton.language.inline_asm_elementwise": "inline assembly can read the GPU clock (%globaltimer) and tell "
                                              "timed calls from checked ones; write the computation in tl.* ops",
    "triton.language.extra.hip": "the HIP (AMD) extras do not run on this machine",
    # standard library
    **dict.fromkeys(["typing.get_type_hints", "typing.ForwardRef"], "it evaluates annotation strings as code"),
    **dict.fromkeys(["operator.attrgetter", "operator.methodcaller"],
                    "it walks attributes named by a string, which the guard cannot check"),
    "__future__.barry_as_FLUFL": "it changes the parser",
}

# Modules that no reference import unlocks (the reference may import os to read a path; a candidate never
# needs to), with everything under them.
NEVER_IMPORT = _names("""
    builtins code codeop ctypes gc importlib inspect io marshal mmap multiprocessing os pathlib pickle posix pty
    runpy shutil signal socket subprocess sys tempfile threading _thread types weakref
""")

# --- builtins ----------------------------------------------------------------------------------------------

BUILTINS = _names("""
    abs all any ascii bin bool callable chr classmethod complex dict divmod enumerate filter float format frozenset
    getattr hasattr hex int isinstance issubclass iter len list map max min next object oct ord pow print property
    range repr reversed round set slice sorted staticmethod str sum super tuple zip NotImplemented Ellipsis
    Exception ArithmeticError AssertionError AttributeError FloatingPointError IndexError KeyError LookupError
    MemoryError NotImplementedError OverflowError RecursionError RuntimeError StopIteration TypeError ValueError
    ZeroDivisionError
""")
_RUNS_CODE = "runs code the guard cannot see"
_BASE_EXCEPTION = ("is not an Exception: it escapes the judge's handlers and ends the worker; raise ValueError or "
                   "RuntimeError instead")
BUILTIN_REASONS: dict[str, str] = {
    **dict.fromkeys(["exec", "eval", "compile"], _RUNS_CODE),
    "__import__": "imports modules around the import allowlist",
    "__build_class__": "builds classes around the class rules",
    "open": "opens files",
    **dict.fromkeys(["globals", "locals", "vars", "dir"], "exposes namespaces the guard cannot follow"),
    "getattr": "is allowed only as getattr(obj, 'public_name') or getattr(obj, 'public_name', default) with a "
               "constant name",
    "hasattr": "is allowed only as hasattr(obj, 'public_name') with a constant name",
    **dict.fromkeys(["setattr", "delattr"], "changes attributes the guard cannot see; assign self.<name> = ... "
                                            "instead"),
    "type": "can create classes with any methods (and type(x) leads to type itself); use isinstance() instead",
    **dict.fromkeys(["id", "hash"], "gives object identities, which let code cache results keyed on the judge's "
                                    "tensors"),
    **dict.fromkeys(["memoryview", "bytearray"], "exposes raw memory"),
    **dict.fromkeys(["breakpoint", "input", "help"], "is interactive"),
    **dict.fromkeys(["exit", "quit"], "ends the worker"),
    **dict.fromkeys(["SystemExit", "KeyboardInterrupt", "GeneratorExit", "BaseException", "BaseExceptionGroup"],
                    _BASE_EXCEPTION),
    **dict.fromkeys(["aiter", "anext"], "belongs to async code, which is not allowed"),
}

# --- attributes of other objects ---------------------------------------------------------------------------

# Dunder attributes a candidate may use (super().__init__(...), nn.Module.__init__(self), fn.__name__).
DUNDER_ATTRIBUTES = _names("__init__ __name__")
# Any attribute whose name contains this installs or reads hooks: register_forward_hook, register_hook,
# register_module_forward_hook, add_pre_run_hook, _forward_hooks, ...
HOOK_MARK = "hook"
# allowed where only their truth is read
HOOK_TESTS = frozenset({"_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks"})
# A module's own dicts of children, parameters and buffers: allowed only as ``m._parameters.get('name')`` (one
# constant key, read): the dispatch of a patch reads the module's state on every call, and Module.__getattr__
# costs ~0.7 us a read
STATE_SLOTS = frozenset({"_modules", "_parameters", "_buffers"})
_IDENTITY = ("a tensor's address lets code recognise the judge's tensors (identity caches); pass tensors to "
             "Triton kernels directly")
_FRAMES = "it reaches the interpreter's frames, code objects or class tree (and from there the judge's state)"
_MODULE_ATTRIBUTE = "it reaches a module the import allowlist forbids"
_LAUNCHER = ("it reaches Triton's compiled launcher, which launches on any stream it is given and outside the "
             "judge's count of launches; launch a kernel as kernel[grid](...)")
# Keyword arguments refused in any call: Triton's compiled launcher takes a raw CUDA stream handle as ``stream=``
# (red team, 2026-12-02), and no tensor op a candidate needs takes one.
_PINNED = ("pinned host memory lets a kernel signal the host while it runs, which tells the judge's phases apart "
           "(red team, 2026-12-02: a kernel's tick in pinned memory arrives at once only when the GPU is idle)")
REFUSED_KEYWORDS = {"stream": _STREAMS, "pin_memory": _PINNED}
REFUSED_ATTRIBUTES: dict[str, str] = {
    "data_ptr": _IDENTITY,
    **dict.fromkeys(["untyped_storage", "storage", "_typed_storage", "_storage", "storage_type", "set_",
                     "share_memory_", "share_memory", "_cdata", "from_file", "_new_shared"], _STORAGE),
    **dict.fromkeys(["tofile", "fromfile", "dump", "dumps"], _FILES),
    **dict.fromkeys(["numpy", "to_dlpack", "ctypes"], "it leaves torch for raw arrays (numpy arrays write files, "
                                                      "ctypes reads any memory)"),
    "record_stream": _STREAMS,
    **dict.fromkeys(["warmup", "run", "launch_metadata", "packed_metadata"], _LAUNCHER),
    **dict.fromkeys(["pin_memory", "is_pinned"], _PINNED),
    **dict.fromkeys(["gi_frame", "gi_code", "gi_yieldfrom", "cr_frame", "cr_code", "cr_await", "cr_origin",
                     "ag_frame", "ag_code", "ag_await", "f_back", "f_locals", "f_globals", "f_builtins", "f_code",
                     "f_trace", "tb_frame", "tb_next", "co_code", "co_consts", "co_names", "func_globals",
                     "cell_contents", "mro"], _FRAMES),
    **dict.fromkeys(["os", "sys", "builtins", "importlib", "subprocess", "inspect", "threading", "multiprocessing",
                     "shutil", "pickle", "io", "gc", "socket", "marshal", "weakref", "pty", "posix", "tempfile",
                     "pathlib", "glob", "tarfile", "zipfile", "signal", "platform", "runpy", "np", "warnings",
                     "functools", "types", "traceback"], _MODULE_ATTRIBUTE),
}

# Attributes refused on every path below a module the reference imports (``import torch.utils.checkpoint``,
# ``import numpy as np``, ``from transformers... import X``): those paths skip the allowlists above, so a module
# the library imported for itself (``checkpoint.torch.library``) or a raw-memory API (``np.lib.stride_tricks``)
# must not be reachable through them.
REFERENCE_WALK_REFUSED: dict[str, str] = {
    **dict.fromkeys(["torch", "triton", "tl", "numpy", "np", "library", "ops", "ctypes", "ctypeslib", "_C",
                     "os", "sys", "io", "pathlib", "shutil", "subprocess", "builtins", "importlib", "pickle",
                     "socket", "glob", "tempfile", "inspect", "gc"],
                    "it reaches a module the library imports for itself, around the guard's allowlists"),
    **dict.fromkeys(["lib", "stride_tricks", "as_strided", "memmap", "frombuffer", "fromfile", "tofile", "load",
                     "loadtxt", "save", "savez", "savez_compressed", "savetxt", "genfromtxt", "fromregex", "dump",
                     "dumps", "DataSource", "from_dlpack", "__array_interface__"],
                    "it reaches raw memory or files around the tensor API"),
}

# Attributes of Triton kernel objects that hand back the globals they were defined with.
KERNEL_INTERNALS = {"get_capture_scope": "it hands back the kernel's globals (and their builtins)",
                    "used_global_vals": "it hands back the kernel's globals"}

# --- classes, decorators, context managers -----------------------------------------------------------------

MODEL_BASE = "torch.nn.Module"
CLASS_BASES = frozenset({"torch.nn.Module", "torch.autograd.Function"} | {f"torch.nn.{n}" for n in NN_LAYERS})
BUILTIN_CLASS_BASES = _names("""
    object Exception ArithmeticError AssertionError AttributeError FloatingPointError IndexError KeyError
    LookupError MemoryError NotImplementedError OverflowError RecursionError RuntimeError StopIteration TypeError
    ValueError ZeroDivisionError
""")
GRAD_MODES = frozenset({"torch.no_grad", "torch.enable_grad", "torch.inference_mode"})
CONTEXT_MANAGERS = GRAD_MODES | {"torch.cuda.device"}
DECORATORS = frozenset({"triton.jit", "triton.autotune", "triton.heuristics"}) | GRAD_MODES
BUILTIN_DECORATORS = _names("staticmethod classmethod property")
PROPERTY_DECORATORS = _names("setter getter deleter")
