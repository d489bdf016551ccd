"""Review questions of chapter 12: multiple devices (DataParallel, DistributedDataParallel, all-reduce)."""

from grading.review import choice, number

QUESTIONS = [
    choice(
        "In which order does `nn.DataParallel` run the four steps of a forward pass?",
        [
            "replicate, scatter, gather, parallel apply",
            "scatter, replicate, parallel apply, gather",
            "gather, scatter, replicate, parallel apply",
            "parallel apply, scatter, replicate, gather",
        ],
        "b",
        "Scatter cuts the batch (like chunk) and moves each piece to its device, replicate makes differentiable copies "
        "of the weights, parallel apply runs each copy on its piece (one thread per device), gather concatenates the "
        "outputs on the output device.",
    ),
    choice(
        "A batch of 10 is scattered over 3 devices like `chunk`. What are the piece sizes?",
        ["4, 3, 3", "4, 4, 2", "3, 3, 4", "3, 3, 3 (one sample dropped)"],
        "b",
        "chunk makes pieces of ceil(10/3) = 4 and the last takes what is left: 4, 4, 2.",
    ),
    choice(
        "In backward, what does the replicate step's `Broadcast` do with each weight's gradients from the replicas?",
        ["averages them", "sums them", "keeps the first", "keeps the largest"],
        "b",
        "The loss depends on the weight through every copy, so the chain rule sums: the original parameter receives "
        "exactly the single-device gradient of the whole batch. (DistributedDataParallel instead averages, since each "
        "process computes its own loss on its share.)",
    ),
    choice(
        "You save `nn.DataParallel(model).state_dict()` and load it into a plain model. What goes wrong?",
        [
            "nothing",
            "the keys start with 'module.', so they do not match the plain model's keys",
            "the weights are on the wrong device",
            "the file is twice as large",
        ],
        "b",
        "The wrapper holds the model as its attribute `module`; save `wrapper.module.state_dict()` or strip "
        "the prefix.",
    ),
    number(
        "Ring all-reduce over N GPUs sends 2(N−1)/N times the gradient bytes per GPU. How many MB per GPU for 100 MB "
        "of gradients and N = 4?",
        150,
        "2 · 3/4 · 100 = 150 MB: a reduce-scatter and an all-gather, each sending (N−1)/N of the data. As N grows it "
        "tends to about twice the gradients, whatever the number of GPUs.",
    ),
    number(
        "`DistributedSampler` over a dataset of 10 samples with 4 replicas (the default drop_last=False): how many "
        "samples does each rank get?",
        3,
        "Each rank gets ceil(10/4) = 3 samples; the sampler pads with repeated samples to 12 so that every rank runs "
        "the same number of steps.",
    ),
]
