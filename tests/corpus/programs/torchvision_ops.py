# Corpus program: torchvision's pure-PyTorch ops: sigmoid_focal_loss, stochastic_depth/StochasticDepth
#   (torch.empty(...).bernoulli_, div_, torch.fx.wrap of a function name), the box utilities (box_area with
#   _upcast, box_iou, generalized_box_iou, box_convert's cxcywh/xywh helpers, clip_boxes_to_image,
#   remove_small_boxes) and batched_nms's coordinate trick decorated with torch.jit._script_if_tracing, with the
#   torch.jit.is_scripting()/is_tracing() guards and torch._C._log_api_usage_once as torchvision calls them.
# Source: pytorch/vision, torchvision/ops/focal_loss.py, stochastic_depth.py, boxes.py, _box_convert.py,
#   _utils.py (_upcast) and torchvision/utils.py (_log_api_usage_once), as published.
# Licence: BSD-3-Clause (torchvision).
# Changes: torch.ops.torchvision.nms (a C++ kernel) replaced by a Python greedy NMS over box_iou; the functions
#   copied into one file; random boxes and logits.
# Randomness: torch.manual_seed(0) (minitorch draws PyTorch's numbers).
import torch
import torch.fx
import torch.nn.functional as F
from torch import nn, Tensor
from typing import Any, Tuple


def _log_api_usage_once(obj: Any) -> None:
    module = obj.__module__
    if not module.startswith("torchvision"):
        module = f"torchvision.internal.{module}"
    name = obj.__class__.__name__
    if isinstance(obj, type(_log_api_usage_once)):
        name = obj.__name__
    torch._C._log_api_usage_once(f"{module}.{name}")


def _upcast(t: Tensor) -> Tensor:
    # Protects from numerical overflows in multiplications by upcasting to the equivalent higher type
    if t.is_floating_point():
        return t if t.dtype in (torch.float32, torch.float64) else t.float()
    else:
        return t if t.dtype in (torch.int32, torch.int64) else t.int()


def sigmoid_focal_loss(
    inputs: torch.Tensor,
    targets: torch.Tensor,
    alpha: float = 0.25,
    gamma: float = 2,
    reduction: str = "none",
):
    p = torch.sigmoid(inputs)
    ce_loss = F.binary_cross_entropy_with_logits(inputs, targets, reduction="none")
    p_t = p * targets + (1 - p) * (1 - targets)
    loss = ce_loss * ((1 - p_t) ** gamma)

    if alpha >= 0:
        alpha_t = alpha * targets + (1 - alpha) * (1 - targets)
        loss = alpha_t * loss

    if reduction == "mean":
        loss = loss.mean()
    elif reduction == "sum":
        loss = loss.sum()

    return loss


def stochastic_depth(input: Tensor, p: float, mode: str, training: bool = True) -> Tensor:
    if not torch.jit.is_scripting() and not torch.jit.is_tracing():
        _log_api_usage_once(stochastic_depth)
    if p < 0.0 or p > 1.0:
        raise ValueError(f"drop probability has to be between 0 and 1, but got {p}")
    if mode not in ["batch", "row"]:
        raise ValueError(f"mode has to be either 'batch' or 'row', but got {mode}")
    if not training or p == 0.0:
        return input

    survival_rate = 1.0 - p
    if mode == "row":
        size = [input.shape[0]] + [1] * (input.ndim - 1)
    else:
        size = [1] * input.ndim
    noise = torch.empty(size, dtype=input.dtype, device=input.device)
    noise = noise.bernoulli_(survival_rate)
    if survival_rate > 0.0:
        noise.div_(survival_rate)
    return input * noise


torch.fx.wrap("stochastic_depth")


class StochasticDepth(nn.Module):
    def __init__(self, p: float, mode: str) -> None:
        super().__init__()
        _log_api_usage_once(self)
        self.p = p
        self.mode = mode

    def forward(self, input: Tensor) -> Tensor:
        return stochastic_depth(input, self.p, self.mode, self.training)

    def __repr__(self) -> str:
        s = f"{self.__class__.__name__}(" f"p={self.p}" f", mode={self.mode}" f")"
        return s


def _box_cxcywh_to_xyxy(boxes: Tensor) -> Tensor:
    cx, cy, w, h = boxes.unbind(-1)
    x1 = cx - 0.5 * w
    y1 = cy - 0.5 * h
    x2 = cx + 0.5 * w
    y2 = cy + 0.5 * h

    boxes = torch.stack((x1, y1, x2, y2), dim=-1)

    return boxes


def _box_xyxy_to_cxcywh(boxes: Tensor) -> Tensor:
    x1, y1, x2, y2 = boxes.unbind(-1)
    cx = (x1 + x2) / 2
    cy = (y1 + y2) / 2
    w = x2 - x1
    h = y2 - y1

    boxes = torch.stack((cx, cy, w, h), dim=-1)

    return boxes


def _box_xywh_to_xyxy(boxes: Tensor) -> Tensor:
    x, y, w, h = boxes.unbind(-1)
    boxes = torch.stack([x, y, x + w, y + h], dim=-1)
    return boxes


def box_area(boxes: Tensor) -> Tensor:
    if not torch.jit.is_scripting() and not torch.jit.is_tracing():
        _log_api_usage_once(box_area)
    boxes = _upcast(boxes)
    return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])


def _box_inter_union(boxes1: Tensor, boxes2: Tensor) -> Tuple[Tensor, Tensor]:
    area1 = box_area(boxes1)
    area2 = box_area(boxes2)

    lt = torch.max(boxes1[:, None, :2], boxes2[:, :2])  # [N,M,2]
    rb = torch.min(boxes1[:, None, 2:], boxes2[:, 2:])  # [N,M,2]

    wh = _upcast(rb - lt).clamp(min=0)  # [N,M,2]
    inter = wh[:, :, 0] * wh[:, :, 1]  # [N,M]

    union = area1[:, None] + area2 - inter

    return inter, union


def box_iou(boxes1: Tensor, boxes2: Tensor) -> Tensor:
    if not torch.jit.is_scripting() and not torch.jit.is_tracing():
        _log_api_usage_once(box_iou)
    inter, union = _box_inter_union(boxes1, boxes2)
    iou = inter / union
    return iou


def generalized_box_iou(boxes1: Tensor, boxes2: Tensor) -> Tensor:
    if not torch.jit.is_scripting() and not torch.jit.is_tracing():
        _log_api_usage_once(generalized_box_iou)

    inter, union = _box_inter_union(boxes1, boxes2)
    iou = inter / union

    lti = torch.min(boxes1[:, None, :2], boxes2[:, :2])
    rbi = torch.max(boxes1[:, None, 2:], boxes2[:, 2:])

    whi = _upcast(rbi - lti).clamp(min=0)  # [N,M,2]
    areai = whi[:, :, 0] * whi[:, :, 1]

    return iou - (areai - union) / areai


def clip_boxes_to_image(boxes: Tensor, size: Tuple[int, int]) -> Tensor:
    dim = boxes.dim()
    boxes_x = boxes[..., 0::2]
    boxes_y = boxes[..., 1::2]
    height, width = size

    boxes_x = boxes_x.clamp(min=0, max=width)
    boxes_y = boxes_y.clamp(min=0, max=height)

    clipped_boxes = torch.stack((boxes_x, boxes_y), dim=dim)
    return clipped_boxes.reshape(boxes.shape)


def remove_small_boxes(boxes: Tensor, min_size: float) -> Tensor:
    ws, hs = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    keep = (ws >= min_size) & (hs >= min_size)
    keep = torch.where(keep)[0]
    return keep


def nms(boxes: Tensor, scores: Tensor, iou_threshold: float) -> Tensor:
    """A Python stand-in for torch.ops.torchvision.nms: greedy suppression in decreasing score order."""
    order = scores.argsort(descending=True)
    iou = box_iou(boxes, boxes)
    keep = []
    suppressed = torch.zeros(len(boxes), dtype=torch.bool)
    for i in order.tolist():
        if suppressed[i]:
            continue
        keep.append(i)
        suppressed |= iou[i] > iou_threshold
    return torch.tensor(keep, dtype=torch.int64)


@torch.jit._script_if_tracing
def _batched_nms_coordinate_trick(
    boxes: Tensor,
    scores: Tensor,
    idxs: Tensor,
    iou_threshold: float,
) -> Tensor:
    if boxes.numel() == 0:
        return torch.empty((0,), dtype=torch.int64, device=boxes.device)
    max_coordinate = boxes.max()
    offsets = idxs.to(boxes) * (max_coordinate + torch.tensor(1).to(boxes))
    boxes_for_nms = boxes + offsets[:, None]
    keep = nms(boxes_for_nms, scores, iou_threshold)
    return keep


torch.manual_seed(0)
logits = torch.randn(4, 5, requires_grad=True)
targets = (torch.rand(4, 5) > 0.7).float()
for reduction in ("none", "mean", "sum"):
    loss = sigmoid_focal_loss(logits, targets, reduction=reduction)
    print(reduction, loss if reduction != "none" else loss[0])
sigmoid_focal_loss(logits, targets, alpha=-1, reduction="sum").backward()
print(logits.grad[0])

sd = StochasticDepth(0.5, "row")
print(sd)
x = torch.ones(6, 2, 3)
print(sd(x)[:, 0, 0], stochastic_depth(x, 0.5, "batch").sum())
sd.eval()
print(torch.equal(sd(x), x))
try:
    stochastic_depth(x, 0.5, "column")
except ValueError as error:
    print("ValueError:", error)

centres = torch.rand(8, 4) * torch.tensor([20.0, 20.0, 8.0, 8.0]) + torch.tensor([0.0, 0.0, 1.0, 1.0])
boxes = _box_cxcywh_to_xyxy(centres)
print(torch.allclose(_box_xyxy_to_cxcywh(boxes), centres, atol=1e-5))
print(_box_xywh_to_xyxy(torch.tensor([[1.0, 2.0, 3.0, 4.0]])))
print(box_area(boxes))
print(box_area(torch.tensor([[0, 0, 3, 4]], dtype=torch.int16)).dtype)
print(box_iou(boxes[:3], boxes))
print(generalized_box_iou(boxes[:2], boxes[2:5]))
clipped = clip_boxes_to_image(boxes, (16, 16))
print(clipped[:3], remove_small_boxes(clipped, 3.0))
scores = torch.rand(8)
idxs = torch.tensor([0, 1, 0, 1, 0, 1, 0, 1])
print(_batched_nms_coordinate_trick(boxes, scores, idxs, 0.3))
print(_batched_nms_coordinate_trick(torch.zeros(0, 4), torch.zeros(0), torch.zeros(0), 0.5))
