"""Review questions of chapter 6: data (Dataset, DataLoader, samplers, collate, transforms, workers)."""

from grading.review import choice, number

QUESTIONS = [
    number(
        "A DataLoader over 10 samples with batch_size=3 (drop_last=False): how many batches does one epoch give?",
        4,
        "Three full batches of 3 and a last batch of 1: ceil(10/3) = 4. With drop_last=True the short batch is "
        "dropped and there are 3.",
    ),
    number(
        "`random_split(dataset_of_10, [0.8, 0.2], generator=g)`: how many samples does the first Subset hold?",
        8,
        "Fractions are turned into lengths that add up to the dataset's size: 8 and 2. The generator makes the split "
        "reproducible.",
    ),
    choice(
        "A dataset returns (image, label) pairs, the image a tensor of shape (2,), the label an int. What does "
        "`default_collate` make of a batch of 4 such pairs?",
        [
            "a list of 4 tuples",
            "a pair: a tensor of shape (4, 2) and a tensor of shape (4,)",
            "one tensor of shape (4, 3)",
            "a tensor of shape (2, 4)",
        ],
        "b",
        "default_collate transposes the tuples (images together, labels together), stacks the tensors along a new "
        "first dimension and turns the numbers into a tensor.",
    ),
    choice(
        "Normalisation statistics (mean and standard deviation per channel) should be computed on:",
        [
            "the whole dataset, training and validation together",
            "the training set only",
            "the validation set only",
            "each batch as it arrives",
        ],
        "b",
        "The validation set stands for data the model has not seen; computing statistics on it lets it leak into "
        "training. Compute them on the training set and apply them everywhere.",
    ),
    choice(
        "How do you get the same shuffled order every time you run the notebook?",
        [
            "shuffle=False",
            "pass a seeded generator to the DataLoader (shuffle=True uses a RandomSampler that draws from it)",
            "set num_workers=0",
            "sort the dataset first",
        ],
        "b",
        "A RandomSampler draws its permutation from the generator; seed it and every run, and every epoch sequence, "
        "is the same.",
    ),
    choice(
        "A dataset draws random augmentations from its own generator. With several workers, what does "
        "`worker_init_fn` with `get_worker_info()` fix?",
        [
            "the order of the batches",
            "each worker would otherwise start from a copy of the same generator state and make the same 'random' "
            "augmentations",
            "the speed of the workers",
            "nothing: workers never share state",
        ],
        "b",
        "Each worker process starts with a copy of the dataset, generator included. Seed each worker's generator from "
        "its id (get_worker_info().id, or its seed) in worker_init_fn.",
    ),
]
