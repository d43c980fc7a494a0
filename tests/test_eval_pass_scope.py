"""Evaluation between training steps is no model code, from two facts of the code (set-e hand
reading, bench/results/handread_e.md): a function that switches a module to eval mode and back
to training mode (`self.eval()` ... `self.train()`, nerfstudio's pipeline
`get_eval_image_metrics_and_images`) is cold whoever calls it, and so are the methods of a
`threading.Thread` subclass (nerfstudio's viewer `RenderStateMachine.run`, a host worker). A
colormap helper only such code calls (`apply_pca_colormap`, through the models' evaluation
images) is then cold across files. Twins stay flagged: `m.train(training)` restores the
caller's mode (gpytorch's heteroskedastic noise takes a submodule's posterior so inside a
forward), and a helper model code calls. Through the real CLI; the snippets are excerpts of
nerfstudio 1.1.5 (Apache 2.0) and gpytorch 1.15.2 (MIT), shortened.
"""
from __future__ import annotations

from _tree import findings, write_tree

FILES = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/colormaps.py": """\
        import torch


        def apply_pca_colormap(image):
            valids = (image.abs().amax(dim=-1)) > 0
            d = torch.abs(image[valids, :] - torch.median(image[valids, :], dim=0).values)
            return d


        def apply_colormap(image):
            if image.shape[-1] > 3:
                return apply_pca_colormap(image)
            return image


        def apply_mask_colormap(image):
            valids = (image.abs().amax(dim=-1)) > 0
            return image[valids, :]
        """,
    "pkg/model.py": """\
        from typing import Dict, Tuple

        import torch
        from torch import Tensor

        from pkg.colormaps import apply_colormap, apply_mask_colormap


        class Model(torch.nn.Module):
            def forward(self, x):
                return apply_mask_colormap(x)

            def get_image_metrics_and_images(self, outputs, batch) -> Tuple[Dict[str, float], Dict[str, Tensor]]:
                return {"psnr": float(outputs.mean())}, {"img": apply_colormap(outputs)}
        """,
    "pkg/pipeline.py": """\
        import torch


        class Pipeline(torch.nn.Module):
            def __init__(self, model):
                super().__init__()
                self.model = model

            def get_eval_image_metrics_and_images(self, batch):
                self.eval()
                outputs = self.model(batch)
                metrics_dict, images_dict = self.model.get_image_metrics_and_images(outputs, batch)
                metrics_dict["num_rays"] = (batch.shape[0] * outputs.sum()).item()
                self.train()
                return metrics_dict, images_dict

            def get_noise(self, batch):
                training = self.model.training
                self.model.eval()
                noise = (batch.shape[0] * self.model(batch).sum()).item()
                self.model.train(training)
                return noise
        """,
    "pkg/trainer.py": """\
        class Trainer:
            def __init__(self, pipeline):
                self.pipeline = pipeline

            def eval_iteration(self, step, batch):
                metrics_dict, images_dict = self.pipeline.get_eval_image_metrics_and_images(batch)
                return metrics_dict
        """,
    "pkg/viewer.py": """\
        import threading

        from pkg.colormaps import apply_colormap


        class RenderStateMachine(threading.Thread):
            def __init__(self, viewer):
                threading.Thread.__init__(self)
                self.viewer = viewer

            def run(self):
                while True:
                    outputs = self.viewer.render()
                    self._send_output_to_viewer(outputs)

            def _send_output_to_viewer(self, outputs):
                self.viewer.show(apply_colormap(outputs))
        """,
}


def test_evaluation_pass_and_viewer_thread_make_their_helpers_cold(dynlint, tmp_path):
    write_tree(tmp_path, FILES)
    found = findings(dynlint, tmp_path, ".", "--no-cache")
    lines = {(p, line) for p, line, _ in found}
    # The colormap the evaluation images and the viewer use: cold.
    assert not any(p == "colormaps.py" and line < 15 for p, line in lines), found
    # The one forward calls: in scope.
    assert ("colormaps.py", 18) in lines, found
    # The eval pass's own read: cold; the twin restoring the caller's mode stays.
    assert ("pipeline.py", 13) not in lines, found
    assert ("pipeline.py", 20) in lines, found
    r = dynlint("check", "--explain", "pkg/pipeline.py:13", cwd=tmp_path)
    assert "eval mode and back to training mode" in r.stdout, r.stdout


def test_without_the_viewer_thread_its_caller_keeps_the_colormap(dynlint, tmp_path):
    files = dict(FILES)
    files["pkg/viewer.py"] = files["pkg/viewer.py"].replace("(threading.Thread)", "")
    write_tree(tmp_path, files)
    found = findings(dynlint, tmp_path, ".", "--no-cache")
    assert ("colormaps.py", 6) in {(p, line) for p, line, _ in found}, found
