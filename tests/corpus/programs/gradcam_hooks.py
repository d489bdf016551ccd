# Corpus program: Grad-CAM through module hooks: ActivationsAndGradients registers forward hooks on target
#   layers, stores detached activations and, from inside the forward hook, a tensor hook (output.register_hook)
#   that prepends gradients; the hooks' handles are removed afterwards; ClassifierOutputTarget picks a class
#   score; GradCAM's weights are the spatial means of the gradients (NumPy) and the CAM is a ReLU of the weighted
#   sum, normalised per image; model.zero_grad() and backward(retain_graph=True) as BaseCAM does.
# Source: jacobgil/pytorch-grad-cam, pytorch_grad_cam/activations_and_gradients.py (as published),
#   utils/model_targets.py (ClassifierOutputTarget), grad_cam.py (get_cam_weights) and base_cam.py
#   (forward, get_cam_image, compute_cam_per_layer, aggregate_multi_layers).
# Licence: MIT (pytorch-grad-cam).
# Changes: cv2's resize in scale_cam_image left out (the CAM stays at the layer's resolution, min-max scaled as
#   there); a small CNN with random weights instead of a torchvision ResNet; random images.
# Randomness: torch.manual_seed(0) (minitorch draws PyTorch's numbers).
# corpus-tolerance: rtol=1e-4 atol=1e-5 -- float32 convolutions.
import numpy as np
import torch
import torch.nn as nn


class ActivationsAndGradients:
    """ Class for extracting activations and
    registering gradients from targetted intermediate layers """

    def __init__(self, model, target_layers, reshape_transform):
        self.model = model
        self.gradients = []
        self.activations = []
        self.reshape_transform = reshape_transform
        self.handles = []
        for target_layer in target_layers:
            self.handles.append(
                target_layer.register_forward_hook(self.save_activation))
            # Because of https://github.com/pytorch/pytorch/issues/61519,
            # we don't use backward hook to record gradients.
            self.handles.append(
                target_layer.register_forward_hook(self.save_gradient))

    def save_activation(self, module, input, output):
        activation = output

        if self.reshape_transform is not None:
            activation = self.reshape_transform(activation)
        self.activations.append(activation.cpu().detach())

    def save_gradient(self, module, input, output):
        if not hasattr(output, "requires_grad") or not output.requires_grad:
            # You can only register hooks on tensor requires grad.
            return

        # Gradients are computed in reverse order
        def _store_grad(grad):
            if self.reshape_transform is not None:
                grad = self.reshape_transform(grad)
            self.gradients = [grad.cpu().detach()] + self.gradients

        output.register_hook(_store_grad)

    def __call__(self, x):
        self.gradients = []
        self.activations = []
        return self.model(x)

    def release(self):
        for handle in self.handles:
            handle.remove()


class ClassifierOutputTarget:
    def __init__(self, category):
        self.category = category

    def __call__(self, model_output):
        if len(model_output.shape) == 1:
            return model_output[self.category]
        return model_output[:, self.category]


def scale_cam_image(cam, target_size=None):
    result = []
    for img in cam:
        img = img - np.min(img)
        img = img / (1e-7 + np.max(img))
        result.append(img)
    result = np.float32(result)
    return result


class GradCAM:
    def __init__(self, model, target_layers, reshape_transform=None):
        self.model = model.eval()
        self.target_layers = target_layers
        self.activations_and_grads = ActivationsAndGradients(self.model, target_layers, reshape_transform)

    def get_cam_weights(self, input_tensor, target_layer, target_category, activations, grads):
        # 2D image
        if len(grads.shape) == 4:
            return np.mean(grads, axis=(2, 3))
        raise ValueError("Invalid grads shape. Shape of grads should be 4 (2D image).")

    def get_cam_image(self, input_tensor, target_layer, targets, activations, grads, eigen_smooth=False):
        weights = self.get_cam_weights(input_tensor, target_layer, targets, activations, grads)
        weighted_activations = weights[:, :, None, None] * activations
        cam = weighted_activations.sum(axis=1)
        return cam

    def forward(self, input_tensor, targets=None, eigen_smooth=False):
        input_tensor = input_tensor.float()
        input_tensor = torch.autograd.Variable(input_tensor, requires_grad=True)

        outputs = self.activations_and_grads(input_tensor)

        if targets is None:
            target_categories = np.argmax(outputs.cpu().data.numpy(), axis=-1)
            targets = [ClassifierOutputTarget(category) for category in target_categories]

        self.model.zero_grad()
        loss = sum([target(output) for target, output in zip(targets, outputs)])
        loss.backward(retain_graph=True)

        cam_per_layer = self.compute_cam_per_layer(input_tensor, targets, eigen_smooth)
        return self.aggregate_multi_layers(cam_per_layer)

    def compute_cam_per_layer(self, input_tensor, targets, eigen_smooth):
        activations_list = [a.cpu().data.numpy() for a in self.activations_and_grads.activations]
        grads_list = [g.cpu().data.numpy() for g in self.activations_and_grads.gradients]

        cam_per_target_layer = []
        # Loop over the saliency image from every layer
        for i in range(len(self.target_layers)):
            target_layer = self.target_layers[i]
            layer_activations = None
            layer_grads = None
            if i < len(activations_list):
                layer_activations = activations_list[i]
            if i < len(grads_list):
                layer_grads = grads_list[i]

            cam = self.get_cam_image(input_tensor, target_layer, targets, layer_activations, layer_grads, eigen_smooth)
            cam = np.maximum(cam, 0)
            scaled = scale_cam_image(cam)
            cam_per_target_layer.append(scaled[:, None, :])

        return cam_per_target_layer

    def aggregate_multi_layers(self, cam_per_target_layer):
        cam_per_target_layer = np.concatenate(cam_per_target_layer, axis=1)
        cam_per_target_layer = np.maximum(cam_per_target_layer, 0)
        result = np.mean(cam_per_target_layer, axis=1)
        return scale_cam_image(result)

    def __call__(self, input_tensor, targets=None, eigen_smooth=False):
        return self.forward(input_tensor, targets, eigen_smooth)

    def __del__(self):
        self.activations_and_grads.release()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, exc_tb):
        self.activations_and_grads.release()
        if isinstance(exc_value, IndexError):
            # Handle IndexError here...
            print(f"An exception occurred in CAM with block: {exc_type}. Message: {exc_value}")
            return True


torch.manual_seed(0)
model = nn.Sequential(
    nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(),
    nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 4))
input_tensor = torch.randn(2, 3, 12, 12)
target_layers = [model[2], model[3]]
with GradCAM(model=model, target_layers=target_layers) as cam:
    grayscale_cam = cam(input_tensor=input_tensor, targets=[ClassifierOutputTarget(1), ClassifierOutputTarget(3)])
    print(grayscale_cam.shape, grayscale_cam.dtype)
    print(np.round(grayscale_cam[0, :3, :3], 4))
    print([tuple(a.shape) for a in cam.activations_and_grads.activations],
          [tuple(g.shape) for g in cam.activations_and_grads.gradients])
    untargeted = cam(input_tensor=input_tensor)
    print(np.round(untargeted[1, 2, :4], 4))
print(len(model[2]._forward_hooks), len(model[3]._forward_hooks))
print(model[0].weight.grad[0, 0])
