"""Dense ADF (Sun et al. 2014: feature-frequency-adaptive on-line training)
written out literally, O(all weights) per update: the test oracle of the
sparse implementation (`spacy_adf.optimizers.adf`).

Every feature group (the weights of one feature share it) has its own
learning rate gamma, starting at c. An update with the summed
log-likelihood gradient of a batch of B samples adds gamma * (gradient -
B * w / (n sigma^2)) to the weights: the Gaussian prior ||w||^2 /
(2 sigma^2) shared evenly by the n training samples (``inv_n_sigma2`` =
1 / (n sigma^2)). It also counts, per group, the samples in which the group
occurs. Once the window holds q samples (``window``), each group's rate is
multiplied by alpha - u (alpha - beta), u being the fraction of the
window's samples it occurred in (at most 1), and the window starts afresh.
`averaged` is the mean of the weights after each update."""
import numpy


def group_of_weights(head_size, ptr):
    """The group of every weight of a grouped layout: the head block
    [0, head_size) is group 0, group g >= 1 the block [head_size + ptr[g-1],
    head_size + ptr[g])."""
    ptr = numpy.asarray(ptr, dtype=numpy.int64)
    out = numpy.zeros(head_size + int(ptr[-1]), dtype=numpy.int64)
    out[head_size:] = numpy.repeat(numpy.arange(1, len(ptr)), numpy.diff(ptr))
    return out


class DenseADFReference:
    def __init__(self, n_weights, group_of_weight, *, c, alpha, beta, window, inv_n_sigma2,
                 use_averages=False):
        self.w = numpy.zeros(n_weights, dtype=numpy.float64)
        self.group = numpy.asarray(group_of_weight)
        n_groups = int(self.group.max()) + 1 if n_weights else 1
        self.gamma = numpy.full(n_groups, float(c))
        self.v = numpy.zeros(n_groups)
        self.alpha, self.beta, self.q = alpha, beta, window
        self.inv_n_sigma2 = inv_n_sigma2
        self.fill = 0
        self.use_averages = use_averages
        self.avg_sum = numpy.zeros(n_weights)
        self.n_updates = 0

    def update(self, grad_sum, groups_per_sample):
        """grad_sum: summed log-likelihood gradient of the batch (dense);
        groups_per_sample: one set of occurring groups per sample."""
        B = len(groups_per_sample)
        g = grad_sum - B * self.w * self.inv_n_sigma2
        self.w = self.w + self.gamma[self.group] * g
        for groups in groups_per_sample:
            for k in groups:
                self.v[k] += 1
        self.fill += B
        self.n_updates += 1
        self.avg_sum += self.w
        if self.fill >= self.q:
            u = numpy.minimum(self.v / self.fill, 1.0)
            self.gamma *= self.alpha - u * (self.alpha - self.beta)
            self.v[:] = 0
            self.fill = 0

    def averaged(self):
        return self.avg_sum / max(self.n_updates, 1)
