"""kornia: feature detection/matching, geometry (RANSAC, homographies), augmentation pipelines,
segmentation/regression losses. Random weights (`pretrained=None`/False), 64-pixel images."""
from __future__ import annotations

import torch

from . import gen, step


def _imgs(n=1, c=1, h=64, w=64, seed=1234):
    return torch.rand(n, c, h, w, generator=gen(seed))


def sift_match():
    import kornia.feature as KF
    feat = KF.SIFTFeature(num_features=64, upright=False)
    matcher = KF.DescriptorMatcher("snn", 0.9)
    a, b = _imgs(seed=1), _imgs(seed=2)

    def run(a, b):
        la, ra, da = feat(a)
        lb, rb, db = feat(b)
        dists, idx = matcher(da[0], db[0])
        return KF.get_laf_center(la), dists, idx
    return step(run, eval_runs=((a, b), {}), feat=feat, matcher=matcher)


def local_feature_matcher():
    import kornia.feature as KF
    # pretrained-free pieces only (GFTTAffNetHardNet & co download weights)
    lf = KF.LocalFeature(KF.MultiResolutionDetector(KF.CornerGFTT(), num_features=32),
                         KF.LAFDescriptor(KF.SIFTDescriptor(32, rootsift=True), patch_size=32))
    m = KF.LocalFeatureMatcher(lf, KF.DescriptorMatcher("smnn", 0.95))
    a, b = _imgs(seed=3), _imgs(seed=4)
    return m, [((), {"data": {"image0": a, "image1": b}})], []


def loftr():
    import kornia.feature as KF
    m = KF.LoFTR(pretrained=None)
    a, b = _imgs(seed=5), _imgs(seed=6)
    return m, [(({"image0": a, "image1": b},), {})], []


def ransac():
    import kornia.geometry as KG
    g = gen(7)
    src = torch.rand(40, 2, generator=g) * 60
    H = torch.tensor([[1.0, 0.1, 3.0], [0.05, 0.95, -2.0], [1e-4, 0.0, 1.0]])
    dst = KG.transform_points(H[None], src[None])[0]
    dst[:10] += torch.rand(10, 2, generator=g) * 20          # outliers
    hom = KG.RANSAC("homography", max_iter=5, batch_size=16)
    fund = KG.RANSAC("fundamental", max_iter=3, batch_size=16)
    m = torch.nn.ModuleDict({"h": hom, "f": fund})

    def run(src, dst):
        return m["h"](src, dst), m["f"](src, dst)
    return step(run, eval_runs=((src, dst), {}), m=m)


def geometry_ops():
    import kornia.geometry as KG
    import kornia.geometry.epipolar as E
    g = gen(8)
    p1 = torch.rand(2, 20, 2, generator=g)
    p2 = p1 + 0.01 * torch.rand(2, 20, 2, generator=g)
    w = torch.ones(2, 20)
    img = _imgs(2, 3, seed=9)
    boxes = torch.tensor([[[4.0, 4.0], [40.0, 4.0], [40.0, 30.0], [4.0, 30.0]]]).repeat(2, 1, 1)

    def run():
        out = [KG.find_homography_dlt(p1, p2, w), KG.find_homography_dlt_iterated(p1, p2, w, 2),
               E.find_fundamental(p1, p2, w), KG.crop_and_resize(img, boxes, (16, 16)),
               KG.warp_perspective(img, KG.get_perspective_transform(boxes, boxes + 2), (32, 32)),
               KG.pyrup(img), KG.rotate(img, torch.tensor([30.0, 45.0]))]
        return out
    return step(run)


def augmentation():
    import kornia.augmentation as K
    aug = K.AugmentationSequential(
        K.RandomHorizontalFlip(p=0.5), K.RandomAffine(degrees=20, p=0.7),
        K.ColorJitter(0.2, 0.2, 0.2, 0.1, p=0.6), K.RandomResizedCrop((48, 48), p=1.0),
        K.RandomGaussianBlur((3, 3), (0.1, 2.0), p=0.5), K.RandomErasing(p=0.5),
        data_keys=["input", "bbox_xyxy", "mask"])
    g = gen(10)
    x = torch.rand(4, 3, 64, 64, generator=g)
    boxes = torch.tensor([[[4.0, 4.0, 30.0, 40.0]]]).repeat(4, 1, 1)
    mask = (torch.rand(4, 1, 64, 64, generator=g) > 0.5).float()
    mix = K.RandomMixUpV2(p=1.0)
    cut = K.RandomCutMixV2(p=1.0)
    labels = torch.tensor([0, 1, 2, 1])

    def run(x, boxes, mask):
        out = aug(x, boxes, mask)
        return out, mix(x, labels), cut(x, labels), aug.inverse(*out)
    return step(run, eval_runs=((x, boxes, mask), {}), train_runs=((x, boxes, mask), {}), aug=aug)


def losses():
    import kornia.losses as L
    g = gen(11)
    logits = torch.randn(2, 4, 16, 16, generator=g, requires_grad=True)
    target = torch.randint(0, 4, (2, 16, 16), generator=g)
    binary = torch.randn(2, 1, 16, 16, generator=g, requires_grad=True)
    btarget = (torch.rand(2, 1, 16, 16, generator=g) > 0.5).long()
    img1, img2 = torch.rand(2, 3, 32, 32, generator=g), torch.rand(2, 3, 32, 32, generator=g)
    fns = [L.FocalLoss(0.5, 2.0, "mean"), L.DiceLoss(), L.TverskyLoss(0.5, 0.5), L.LovaszSoftmaxLoss(),
           L.HausdorffERLoss(), L.SSIMLoss(5), L.MS_SSIMLoss(), L.TotalVariation(), L.PSNRLoss(1.0)]
    bfns = [L.BinaryFocalLossWithLogits(0.25, 2.0, reduction="mean"), L.LovaszHingeLoss()]

    def run():
        total = 0
        for f in fns[:4]:
            total = total + f(logits, target).mean()
        total = total + fns[4](logits, target[:, None])
        for f in fns[5:7]:
            total = total + f(img1, img2)
        total = total + fns[7](img1).mean() + fns[8](img1, img2)
        total = total + bfns[0](binary, btarget.float()) + bfns[1](binary, btarget[:, 0])
        return total
    return step(run, train_runs=((), {}))


def morphology_filters():
    import kornia
    img = _imgs(2, 3, seed=12)
    k = torch.ones(3, 3)

    def run(x):
        gray = kornia.color.rgb_to_grayscale(x)
        return [kornia.morphology.opening(x, k), kornia.filters.canny(x), kornia.filters.median_blur(x, 3),
                kornia.enhance.equalize_clahe(x), kornia.enhance.equalize(x), kornia.feature.harris_response(gray),
                kornia.contrib.connected_components((gray > 0.5).float(), 10),
                kornia.contrib.extract_tensor_patches(x, 8, 8)]
    return step(run, eval_runs=((img,), {}))


MODELS = {
    "kornia_sift_match": sift_match,
    "kornia_local_feature_matcher": local_feature_matcher,
    "kornia_loftr": loftr,
    "kornia_ransac": ransac,
    "kornia_geometry": geometry_ops,
    "kornia_augmentation": augmentation,
    "kornia_losses": losses,
    "kornia_filters": morphology_filters,
}
