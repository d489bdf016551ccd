"""The four graphs a learner meets (issue 25): the course's MLP, a small CNN, a residual block and a
transformer encoder layer, each as the source of a notebook cell that makes a ``GraphStepper``.

The browser test runs the cells in JupyterLab; the headless tests ``exec`` the same text.
"""

from __future__ import annotations

SETUP = """import minitorch
import minitorch.nn as nn
import widgets
"""

CELLS = {
    "mlp": """minitorch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
inputs, targets = minitorch.randn(5, 3), minitorch.randn(5, 2)

def training_loss(inputs, targets):
    prediction = model(inputs)
    error = prediction - targets
    return (error ** 2).mean()

mlp_graph = widgets.GraphStepper.capture(training_loss, inputs, targets, model=model)
mlp_graph""",
    "cnn": """minitorch.manual_seed(0)
cnn = nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(4 * 3 * 3, 3))
images, labels = minitorch.randn(2, 1, 8, 8), minitorch.tensor([0, 2])
cnn_graph = widgets.GraphStepper.capture(lambda images, labels: nn.functional.cross_entropy(cnn(images), labels),
                                         images, labels, model=cnn)
cnn_graph""",
    "residual": """class Residual(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x):
        out = self.bn1(self.conv1(x)).relu()
        out = self.bn2(self.conv2(out))
        return (out + x).relu()

minitorch.manual_seed(0)
block = Residual(2)
residual_graph = widgets.GraphStepper.capture(lambda x: block(x).sum(), minitorch.randn(2, 2, 4, 4), model=block)
residual_graph""",
    "transformer": """minitorch.manual_seed(0)
layer = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, batch_first=True)
transformer_graph = widgets.GraphStepper.capture(lambda x: layer(x).sum(), minitorch.randn(2, 5, 8), model=layer)
transformer_graph""",
}


def make(name: str):
    """Run the cell ``name`` here and return its stepper."""
    scope: dict = {}
    exec(SETUP + CELLS[name].rsplit("\n", 1)[0], scope)  # all but the last line (the display)
    return scope[f"{name}_graph"]
