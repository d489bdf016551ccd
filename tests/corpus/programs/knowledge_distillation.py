# Corpus program: "Knowledge Distillation Tutorial": a teacher and a student network, the
#   soft-target loss with temperature, and the cosine-similarity loss on hidden representations.
# Source: pytorch/tutorials, beginner_source/knowledge_distillation_tutorial.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the tutorial's steps.
# Changes: CIFAR-10 is replaced by 32 NumPy images of 3x32x32; smaller networks of the tutorial's
#   shape; 1 epoch each; dropout p=0 (random masks differ).
# Randomness: weights set from NumPy; no shuffling.
# corpus-tolerance: rtol=1e-4 -- Adam steps through convolutions in float32.
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

rng = np.random.default_rng(55)
device = "cpu"
train_loader = DataLoader(TensorDataset(torch.from_numpy(rng.random((32, 3, 32, 32), dtype=np.float32)),
                                        torch.from_numpy(rng.integers(0, 10, 32))), batch_size=8)
test_loader = DataLoader(TensorDataset(torch.from_numpy(rng.random((16, 3, 32, 32), dtype=np.float32)),
                                       torch.from_numpy(rng.integers(0, 10, 16))), batch_size=8)


def fill(model):
    with torch.no_grad():
        for p in model.parameters():
            fan_in = p[0].numel() if p.dim() > 1 else p.numel()
            p.copy_(torch.from_numpy((rng.uniform(-1, 1, tuple(p.shape)) / fan_in**0.5).astype(np.float32)))
    return model


class DeepNN(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, kernel_size=3, padding=1), nn.ReLU(),
            nn.Conv2d(16, 16, kernel_size=3, padding=1), nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2),
            nn.Conv2d(16, 16, kernel_size=3, padding=1), nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2),
        )
        self.classifier = nn.Sequential(
            nn.Linear(1024, 64), nn.ReLU(), nn.Dropout(0.0), nn.Linear(64, num_classes)
        )

    def forward(self, x):
        x = self.features(x)
        flattened_conv_output = torch.flatten(x, 1)
        x = self.classifier(flattened_conv_output)
        return x


class LightNN(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 4, kernel_size=3, padding=1), nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2),
            nn.Conv2d(4, 8, kernel_size=3, padding=1), nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2),
        )
        self.classifier = nn.Sequential(nn.Linear(512, 32), nn.ReLU(), nn.Dropout(0.0), nn.Linear(32, num_classes))

    def forward(self, x):
        x = self.features(x)
        x = torch.flatten(x, 1)
        x = self.classifier(x)
        return x


def train(model, train_loader, epochs, learning_rate, device):
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.Adam(model.parameters(), lr=learning_rate)
    model.train()
    for epoch in range(epochs):
        running_loss = 0.0
        for inputs, labels in train_loader:
            optimizer.zero_grad()
            outputs = model(inputs)
            loss = criterion(outputs, labels)
            loss.backward()
            optimizer.step()
            running_loss += loss.item()
        print(f"Epoch {epoch + 1}/{epochs}, Loss: {running_loss / len(train_loader):.5f}")


def test(model, test_loader, device):
    model.eval()
    correct = 0
    total = 0
    with torch.no_grad():
        for inputs, labels in test_loader:
            outputs = model(inputs)
            _, predicted = torch.max(outputs.data, 1)
            total += labels.size(0)
            correct += (predicted == labels).sum().item()
    accuracy = 100 * correct / total
    print(f"Test Accuracy: {accuracy:.2f}%")
    return accuracy


nn_deep = fill(DeepNN(num_classes=10))
train(nn_deep, train_loader, epochs=1, learning_rate=0.001, device=device)
test_accuracy_deep = test(nn_deep, test_loader, device)
nn_light = fill(LightNN(num_classes=10))
new_nn_light = LightNN(num_classes=10)
new_nn_light.load_state_dict(nn_light.state_dict())
print("Norm of 1st layer of nn_light:", f"{torch.norm(nn_light.features[0].weight).item():.5f}")
print("Norm of 1st layer of new_nn_light:", f"{torch.norm(new_nn_light.features[0].weight).item():.5f}")
total_params_deep = f"{sum(p.numel() for p in nn_deep.parameters()):,}"
print(f"DeepNN parameters: {total_params_deep}")
total_params_light = f"{sum(p.numel() for p in nn_light.parameters()):,}"
print(f"LightNN parameters: {total_params_light}")


def train_knowledge_distillation(teacher, student, train_loader, epochs, learning_rate, T,
                                 soft_target_loss_weight, ce_loss_weight, device):
    ce_loss = nn.CrossEntropyLoss()
    optimizer = optim.Adam(student.parameters(), lr=learning_rate)
    teacher.eval()
    student.train()
    for epoch in range(epochs):
        running_loss = 0.0
        for inputs, labels in train_loader:
            optimizer.zero_grad()
            with torch.no_grad():
                teacher_logits = teacher(inputs)
            student_logits = student(inputs)
            soft_targets = nn.functional.softmax(teacher_logits / T, dim=-1)
            soft_prob = nn.functional.log_softmax(student_logits / T, dim=-1)
            soft_targets_loss = (torch.sum(soft_targets * (soft_targets.log() - soft_prob))
                                 / soft_prob.size()[0] * (T**2))
            label_loss = ce_loss(student_logits, labels)
            loss = soft_target_loss_weight * soft_targets_loss + ce_loss_weight * label_loss
            loss.backward()
            optimizer.step()
            running_loss += loss.item()
        print(f"Epoch {epoch + 1}/{epochs}, Loss: {running_loss / len(train_loader):.5f}")


train_knowledge_distillation(teacher=nn_deep, student=new_nn_light, train_loader=train_loader, epochs=1,
                             learning_rate=0.001, T=2, soft_target_loss_weight=0.25, ce_loss_weight=0.75,
                             device=device)
test_accuracy_light_ce_and_kd = test(new_nn_light, test_loader, device)


class ModifiedDeepNNCosine(DeepNN):
    def forward(self, x):
        x = self.features(x)
        flattened_conv_output = torch.flatten(x, 1)
        x = self.classifier(flattened_conv_output)
        flattened_conv_output_after_pooling = torch.nn.functional.avg_pool1d(flattened_conv_output, 2)
        return x, flattened_conv_output_after_pooling


class ModifiedLightNNCosine(LightNN):
    def forward(self, x):
        x = self.features(x)
        flattened_conv_output = torch.flatten(x, 1)
        x = self.classifier(flattened_conv_output)
        return x, flattened_conv_output


modified_nn_deep = ModifiedDeepNNCosine(num_classes=10)
modified_nn_deep.load_state_dict(nn_deep.state_dict())
modified_nn_light = ModifiedLightNNCosine(num_classes=10)
modified_nn_light.load_state_dict(nn_light.state_dict())
sample_input = torch.from_numpy(rng.random((8, 3, 32, 32), dtype=np.float32))
logits, hidden_representation = modified_nn_light(sample_input)
print("Student logits shape:", logits.shape)
print("Student hidden representation shape:", hidden_representation.shape)
logits, hidden_representation = modified_nn_deep(sample_input)
print("Teacher logits shape:", logits.shape)
print("Teacher hidden representation shape:", hidden_representation.shape)
cosine_loss = nn.CosineEmbeddingLoss()
teacher_hidden = modified_nn_deep(sample_input)[1]
student_hidden = modified_nn_light(sample_input)[1]
loss = cosine_loss(student_hidden, teacher_hidden.detach(), target=torch.ones(sample_input.size(0)))
print(f"{loss.item():.5f}")
