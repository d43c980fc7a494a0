# LICENSE HEADER MANAGED BY add-license-header
#
# Copyright 2018 Kornia Team
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
#

import math
from collections.abc import Sequence
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

import torch

from kornia.augmentation import random_generator as rg
from kornia.augmentation._2d.intensity.base import IntensityAugmentationBase2D, _clamp_unit_range
from kornia.core.utils import _to_device_nonblocking
from kornia.enhance import adjust_brightness, adjust_contrast, adjust_hue, adjust_saturation


def _contiguous_output(output: torch.Tensor) -> torch.Tensor:
    return output.contiguous()


def _adjust_brightness(input: torch.Tensor, factor: torch.Tensor) -> torch.Tensor:
    return _contiguous_output(adjust_brightness(input, factor - 1))


def _adjust_contrast(input: torch.Tensor, factor: torch.Tensor) -> torch.Tensor:
    return _contiguous_output(adjust_contrast(input, factor))


def _adjust_saturation(input: torch.Tensor, factor: torch.Tensor) -> torch.Tensor:
    return _contiguous_output(adjust_saturation(input, factor))


def _adjust_hue(input: torch.Tensor, factor: torch.Tensor) -> torch.Tensor:
    return _contiguous_output(adjust_hue(input, factor * 2 * math.pi))


_StepFn = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
_Steps = Tuple[_StepFn, _StepFn, _StepFn, _StepFn]
_FACTOR_KEYS = ("brightness_factor", "contrast_factor", "saturation_factor", "hue_factor")


def _apply_order_cond(
    branches: _Steps,
    neutral: Tuple[float, float, float, float],
    order: Tuple[int, ...],
    input: torch.Tensor,
    factors: Tuple[torch.Tensor, ...],
) -> torch.Tensor:
    # Every step runs, and torch.where keeps its output only when a factor in the batch is not neutral. There is
    # no data-dependent Python branch, so eager and compiled mode run this same code path, and fullgraph
    # compilation holds. A step runs even when it is skipped, so this path needs an RGB input. The condition is
    # computed from the CPU factors and moved without waiting for the queued kernels, as a CPU condition in
    # ``torch.where`` would be copied with a blocking transfer.
    for idx in order:
        factor = factors[idx]
        output = branches[idx](input, factor)
        apply = _to_device_nonblocking((factor != neutral[idx]).any(), input.device)
        input = torch.where(apply, output, input)
    return input


def _dispatch_color_steps(
    input: torch.Tensor,
    params: Dict[str, torch.Tensor],
    fixed_order: Optional[Tuple[int, ...]],
    cond_fn: Optional[Callable[[Tuple[int, ...], torch.Tensor, Tuple[torch.Tensor, ...]], torch.Tensor]],
    neutral: Tuple[float, float, float, float],
    steps: _Steps,
) -> torch.Tensor:
    """Apply the four colour steps in order, skipping a step whose factors all equal its ``neutral`` value.

    Shared by :class:`ColorJiggle` and :class:`ColorJitter`. A fixed order on an RGB input goes through ``cond_fn``
    (a :func:`_apply_order_cond` over the same ``neutral`` values) in eager and compiled mode alike. It computes
    all four steps and selects each result with :func:`torch.where`. Every other call uses Python ``.any()``
    guards, which run only the steps that apply and accept any channel count for the skipped ones. ``cond_fn`` is
    ``None`` for a random order.
    """
    factors = tuple(params[key] for key in _FACTOR_KEYS)
    if fixed_order is not None and cond_fn is not None and input.shape[-3] == 3:
        return cond_fn(fixed_order, input, factors)

    order = fixed_order if fixed_order is not None else params["order"].tolist()
    output = input
    for idx in order:
        if (factors[idx] != neutral[idx]).any():
            output = steps[idx](output, factors[idx])
    # With every step skipped, return a copy, as the fixed-order dispatcher and ``p=0`` do, so that writing into
    # the output never changes the caller's input.
    return output.clone() if output is input else output


def _brightness_step(input: torch.Tensor, factor: torch.Tensor) -> torch.Tensor:
    return adjust_brightness(input, factor - 1)


def _hue_step(input: torch.Tensor, factor: torch.Tensor) -> torch.Tensor:
    return adjust_hue(input, factor * 2 * math.pi)


_NEUTRAL = (1.0, 1.0, 1.0, 0.0)
_STEPS: _Steps = (_brightness_step, adjust_contrast, adjust_saturation, _hue_step)
_BRANCHES: _Steps = (_adjust_brightness, _adjust_contrast, _adjust_saturation, _adjust_hue)


def _apply_cond(order: Tuple[int, ...], input: torch.Tensor, factors: Tuple[torch.Tensor, ...]) -> torch.Tensor:
    return _apply_order_cond(_BRANCHES, _NEUTRAL, order, input, factors)


class ColorJiggle(IntensityAugmentationBase2D):
    r"""Apply a random transformation to the brightness, contrast, saturation and hue of a torch.Tensor image.

    .. image:: _static/img/ColorJiggle.png

    See the Convention block on :class:`~kornia.augmentation.IntensityAugmentationBase2D`.

    Args:
        p: probability of applying the transformation.
        brightness: The brightness factor to apply.
        contrast: The contrast factor to apply.
        saturation: The saturation factor to apply.
        hue: The hue factor to apply.
        same_on_batch: apply the same transformation across the batch.
        keepdim: whether to keep the output shape the same as input (True) or broadcast it
                 to the batch form (False).
        order: a fixed application order, as indices into (brightness, contrast, saturation, hue); a subset
          applies only those, and a repeated index raises ``ValueError``. ``None`` (the default) draws a random
          order on every call. A fixed order makes the transform ``torch.compile`` fullgraph-safe for RGB inputs.
          The parameter generator still draws an ``order`` entry into ``_params``, and with a fixed order that
          entry is ignored, including on replay.
    Shape:
        - Input: :math:`(C, H, W)` or :math:`(B, C, H, W)`, Optional: :math:`(B, 3, 3)`
        - Output: :math:`(B, C, H, W)`

    Convention:
        - input values are clamped into ``[0, 1]`` before the operation, and the result is clamped
          into the same range. This applies only to samples selected by the probability gate.
        - the steps use kornia's own primitives: brightness is additive (the drawn factor is re-based to
          ``factor - 1`` for :func:`kornia.enhance.adjust_brightness`, as :class:`RandomBrightness` does),
          contrast scales the raw values (:func:`kornia.enhance.adjust_contrast`), saturation scales the HSV
          saturation (:func:`kornia.enhance.adjust_saturation`) and hue shifts by turns of the hue circle
          (:func:`kornia.enhance.adjust_hue`). :class:`ColorJitter` uses torchvision's blend formulas for the first
          three instead, so the two classes give different outputs for the same factors.
        - with matching effective bounds and the default CPU sampler, this class and :class:`ColorJitter` draw the
          same factors and the same ``order`` from the same seed. The drawn ``order`` is shared by the whole
          batch; without a fixed ``order`` argument, an ``order`` tensor passed as a forward keyword or in
          replayed ``params`` replaces it.
        - ``brightness`` is bounded to ``[0, 2]`` in both argument forms: ``(0.0, 3.0)`` and the scalar ``1.5``,
          whose implied range reaches ``2.5``, raise at construction, where :class:`ColorJitter` accepts either.
        - a step is skipped when every drawn factor in the batch is neutral, so ``ColorJiggle(0, 0, 0, 0)`` is
          the identity for an input in ``[0, 1]``. The channel count only has to suit the steps that run:
          saturation and hue need three channels; a brightness- or contrast-only configuration accepts any.
          The input and final RGB result are clamped even when every step is neutral.

    .. note::
        This function internally uses :func:`kornia.enhance.adjust_brightness`,
        :func:`kornia.enhance.adjust_contrast`. :func:`kornia.enhance.adjust_saturation`,
        :func:`kornia.enhance.adjust_hue`.

    Examples:
        >>> rng = torch.manual_seed(0)
        >>> inputs = torch.ones(1, 3, 3, 3)
        >>> aug = ColorJiggle(0.1, 0.1, 0.1, 0.1, p=1.)
        >>> aug(inputs)
        tensor([[[[0.9993, 0.9993, 0.9993],
                  [0.9993, 0.9993, 0.9993],
                  [0.9993, 0.9993, 0.9993]],
        <BLANKLINE>
                 [[0.9993, 0.9993, 0.9993],
                  [0.9993, 0.9993, 0.9993],
                  [0.9993, 0.9993, 0.9993]],
        <BLANKLINE>
                 [[0.9993, 0.9993, 0.9993],
                  [0.9993, 0.9993, 0.9993],
                  [0.9993, 0.9993, 0.9993]]]])

    To apply the exact augmenation again, you may take the advantage of the previous parameter state:
        >>> input = torch.randn(1, 3, 32, 32)
        >>> aug = ColorJiggle(0.1, 0.1, 0.1, 0.1, p=1.)
        >>> (aug(input) == aug(input, params=aug._params)).all()
        tensor(True)

    """

    def __init__(
        self,
        brightness: Union[torch.Tensor, float, Tuple[float, float], List[float]] = 0.0,
        contrast: Union[torch.Tensor, float, Tuple[float, float], List[float]] = 0.0,
        saturation: Union[torch.Tensor, float, Tuple[float, float], List[float]] = 0.0,
        hue: Union[torch.Tensor, float, Tuple[float, float], List[float]] = 0.0,
        same_on_batch: bool = False,
        p: float = 1.0,
        keepdim: bool = False,
        order: Optional[Sequence[int]] = None,
    ) -> None:
        super().__init__(p=p, same_on_batch=same_on_batch, keepdim=keepdim)
        self.brightness = brightness
        self.contrast = contrast
        self.saturation = saturation
        self.hue = hue
        self._param_generator = rg.ColorJiggleGenerator(brightness, contrast, saturation, hue)
        if order is not None:
            order = tuple(int(i) for i in order)
            if not set(order) <= {0, 1, 2, 3}:
                raise ValueError(
                    f"`order` entries must be in 0..3 (brightness, contrast, saturation, hue). Got {order}"
                )
            if len(order) != len(set(order)):
                raise ValueError(f"`order` must not repeat an index; each adjustment applies at most once. Got {order}")
        self._fixed_order: Optional[Tuple[int, ...]] = order
        self._cond_fn = _apply_cond if order is not None else None

    def apply_transform(
        self,
        input: torch.Tensor,
        params: Dict[str, torch.Tensor],
        flags: Dict[str, Any],
        transform: Optional[torch.Tensor] = None,
    ) -> torch.Tensor:
        # A fixed order on an RGB input runs the branch-free dispatcher in eager and compiled mode alike. It is
        # restricted to RGB inputs because it runs the hue and saturation steps, which require three channels,
        # even when they are skipped.
        input = _clamp_unit_range(input)
        return _clamp_unit_range(
            _dispatch_color_steps(input, params, self._fixed_order, self._cond_fn, _NEUTRAL, _STEPS)
        )
