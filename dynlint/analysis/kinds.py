"""What dynlint knows about torch's API, as plain tables (no torch import).

Kinds are small ints: the low two bits are a tensor-ness level, the rest are flags.

* NOT      certainly not a tensor (Python scalar, str, None, shape, numpy, module object)
* UNKNOWN  no evidence either way
* PROBABLE likely a tensor (an unannotated parameter of `forward`, a submodule's output)
* TENSOR   certainly a tensor (a torch call, a tensor method, arithmetic on tensors)

Flags: BOOL (bool dtype), HOST (a Python value computed from tensor *data*, e.g. `.item()`),
SHAPE (a torch.Size or shape tuple: its items are plain ints), ROW (an item of a loop over a
tensor), SCALAR (a single element taken from such a row, `row[0]`: a 0-d tensor), HOLDS (a
list or tuple literal with a tensor among its items), CPU (a tensor in host memory, see
`hostmem`), VEC (a 1-d tensor by the code that builds it, see `rank`).
"""
from __future__ import annotations

NOT, UNKNOWN, PROBABLE, TENSOR = 0, 1, 2, 3
LEVEL = 3
BOOL, HOST, SHAPE, ROW, SCALAR, HOLDS = 4, 8, 16, 32, 64, 128


def level(kind: int) -> int:
    return kind & LEVEL


# A tuple's items, as calls return them and names unpacking them keep (`Frame.tuples`), are
# a Python tuple of kinds; an item may itself be such a tuple (`return (a, m), loss`).
def items_hold_tensor(items: tuple) -> bool:
    """Whether a tuple with these items' kinds holds a tensor (at any depth)."""
    return any(items_hold_tensor(i) if type(i) is tuple else level(i) == TENSOR for i in items)


def tuple_kind(items: tuple) -> int:
    """The kind of a tuple value itself, from its items' kinds."""
    return NOT | (HOLDS if items_hold_tensor(items) else 0)


# torch functions whose result is not a tensor, beyond the is_/are_/get_/set_/use_/_ prefixes.
TORCH_NOT_TENSOR = frozenset("""
numel typename device dtype Size Generator finfo iinfo no_grad enable_grad inference_mode
set_grad_enabled autocast manual_seed seed initial_seed compile load save broadcast_shapes
promote_types result_type can_cast layout memory_format Stream Event empty_cache
""".split())
# torch functions that turn tensor data into a Python value.
TORCH_HOST = frozenset({"equal", "allclose", "is_nonzero"})
# torch submodules: how to read a call into them (None: unknown).
TORCH_SUBMODULES = {
    "nn.functional": TENSOR, "nn.init": TENSOR, "nn.utils.rnn": TENSOR, "linalg": TENSOR,
    "fft": TENSOR, "special": TENSOR, "sparse": TENSOR, "nested": TENSOR, "ops": TENSOR,
    "masked": TENSOR, "functional": TENSOR, "nn": NOT, "jit": NOT, "cuda": NOT,
    "backends": NOT, "distributed": UNKNOWN, "utils": UNKNOWN, "fx": UNKNOWN,
    "onnx": NOT, "testing": UNKNOWN, "hub": UNKNOWN, "autograd": UNKNOWN, "compiler": NOT,
    "distributions": UNKNOWN, "profiler": NOT, "library": NOT, "export": UNKNOWN,
    "multiprocessing": NOT, "quantization": UNKNOWN, "ao": UNKNOWN, "amp": NOT,
    "random": UNKNOWN, "overrides": NOT, "hpu": NOT, "xpu": NOT, "mps": NOT,
}
BOOL_FUNCS = frozenset("""
isnan isinf isfinite isposinf isneginf isreal isin isclose logical_and logical_or logical_not
logical_xor eq ne lt le gt ge greater greater_equal less less_equal not_equal signbit any all
""".split())
# Functions and methods whose result keeps the dtype of their (first) tensor input.
DTYPE_PRESERVING = frozenset("""
view reshape flatten unflatten squeeze unsqueeze t transpose permute contiguous clone detach
cpu cuda expand expand_as repeat tile flip fliplr flipud roll narrow select index_select gather
tril triu view_as reshape_as chunk split unbind movedim moveaxis swapaxes swapdims cat concat
concatenate stack hstack vstack masked_fill masked_fill_ requires_grad_ pin_memory
broadcast_to take take_along_dim diagonal diag squeeze_ unsqueeze_ to atleast_1d atleast_2d
atleast_3d ravel rot90 as_tensor asarray
""".split())
# Tensor methods whose result is not a tensor; those producing host values from data apart.
NOT_TENSOR_METHODS = frozenset("""
size dim ndimension numel nelement element_size stride storage_offset data_ptr is_contiguous
is_floating_point is_complex is_signed get_device numpy backward register_hook untyped_storage
storage is_pinned is_shared is_set_to dim_order
""".split())
HOST_METHODS = frozenset({"item", "tolist", "equal", "allclose"})
# Tensor methods a Python container has too, with the same call form (`d.values()`;
# `Tensor.values()` exists for sparse tensors only): on a receiver that is only probably a
# tensor, they are no evidence that it is one.
CONTAINER_METHODS = frozenset({"values"})
# Device types a tensor's or a module's `.to("...")` accepts (`"cuda:1"` with an index).
DEVICE_TYPES = frozenset("""
cpu cuda mps xla hpu xpu meta ipu mtia lazy vulkan hip ve fpga maia mkldnn opengl opencl ideep
npu musa privateuseone
""".split())
# Methods that only tensors have (numpy, pandas, lists lack them): evidence of a tensor receiver.
TENSOR_ONLY_METHODS = frozenset("""
view unsqueeze masked_fill masked_fill_ bool long float half double bfloat16 int contiguous
permute detach cuda cpu to type_as new_zeros new_ones new_full new_empty new_tensor expand
expand_as repeat_interleave index_select gather scatter scatter_add scatter_ masked_select
softmax log_softmax sigmoid relu bmm eq ne lt gt le ge logical_and logical_or logical_not isnan
isinf isfinite nonzero argwhere masked_scatter index_fill index_add index_copy narrow unbind
view_as amax amin aminmax
""".split())
# Tensor methods building a new tensor of the receiver's dtype (or the `dtype=` given).
NEW_FACTORIES = frozenset({"new_zeros", "new_ones", "new_full", "new_empty", "new_tensor"})
TENSOR_ATTRS = frozenset({"data", "grad", "T", "mT", "H", "mH", "real", "imag"})
BOOL_DTYPE_NAMES = frozenset({"torch.bool", "bool"})
# Annotation names.
TENSOR_ANNOTATIONS = frozenset("""
Tensor FloatTensor LongTensor IntTensor DoubleTensor HalfTensor ByteTensor ShortTensor
CharTensor BFloat16Tensor Parameter
""".split())
NON_TENSOR_ANNOTATIONS = frozenset("""
int float bool str bytes list tuple dict set List Tuple Dict Set Sequence Mapping Iterable
None NoneType Callable Any_never Size dtype device
""".split())
# Builtins returning non-tensors; int()/float()/bool() of a tensor produce HOST values.
HOST_CONVERTERS = frozenset({"int", "float", "bool", "complex"})
NOT_TENSOR_BUILTINS = frozenset("""
len range str repr isinstance issubclass hasattr getattr callable id hash type list tuple dict
set frozenset sorted enumerate zip map filter print format open iter next reversed vars dir
""".split())
SCALAR_BUILTINS = frozenset({"round", "abs", "min", "max", "sum", "pow", "divmod"})
# Functions and methods that keep their tensor input's shape, so a 0-d tensor (SCALAR) stays
# one: element-wise math and casts (`torch.floor(0.7 * t).to(torch.long)` of a timestep).
SHAPE_PRESERVING = frozenset("""
floor ceil round trunc frac abs neg negative sqrt rsqrt exp exp2 expm1 log log2 log10 log1p
sigmoid tanh sin cos sign clamp clip clamp_min clamp_max square pow reciprocal
to type type_as long int float double half bfloat16 short detach clone contiguous cpu cuda
""".split())
# Reductions over every element when given no `dim` (`torch.argmin(d)`, `x.sum()`): a 0-d
# tensor (SCALAR). Two tensors to `max`/`min` compare element-wise instead (see infer).
FULL_REDUCTIONS = frozenset("""
sum mean prod max min amax amin argmax argmin all any norm std var median nansum nanmean
nanmedian count_nonzero dot vdot trace
""".split())
# ITEMS: a list, tuple or dict every item of which is a tensor (annotated `List[Tensor]`,
# `Dict[str, Tensor]`, `Tuple[Tensor, ...]`, or built by a comprehension of tensors): an item
# taken by subscript (`feats[0]`, `params["prob"]`) is a tensor.
ITEMS = 1024
# SEQ, with ITEMS: the container is a sequence (`List[Tensor]`, `Tuple[Tensor, ...]`, a list
# comprehension of tensors), not a mapping, so iterating or unpacking it yields the tensors
# themselves (a dict's iteration yields its keys).
SEQ = 2048
# ARRAY: a numpy or pandas object (or a value taken from one). Its items, attributes and method
# results are never torch tensors, so `df[df["a"] > 0]` is no boolean-mask index of a tensor.
ARRAY = 256
# CPU: a tensor in host memory (built by a factory without `device=`, or only from such
# tensors and Python values; see `hostmem`). Reading it waits for no device.
CPU = 512
# VEC: a 1-d tensor by the code that builds it (`torch.arange(n)`, `x.flatten()`, the counts
# of `unique`; see `rank`): an item taken by a Python int, or one iteration, is a 0-d tensor.
VEC = 4096
# FWD: an argument that only passes on a parameter of the calling function or lambda, unknown
# there (`lambda t: self._interp(t0, t)`): it says what that function's own callers pass, so
# a call site passing it is no evidence against a parameter's kind (`summaries.upgrade`).
FWD = 8192
# Calls into these libraries return ARRAY values (qualified names, after imports); scipy's
# functions (`scipy.stats.gmean`) take and return numpy arrays, never tensors.
ARRAY_LIBRARIES = ("numpy.", "np.", "pandas.", "pd.", "scipy.")
# `str` methods that no tensor (nor a model's output object) has: their receiver is text and
# their result is not a tensor. (`encode`/`decode` are left out: models have those.)
STR_METHODS = frozenset("""
strip lstrip rstrip lower upper casefold startswith endswith splitlines join format isdigit
isalpha isalnum isspace isnumeric title capitalize zfill ljust rjust center partition rpartition
rsplit replace removeprefix removesuffix
""".split())
