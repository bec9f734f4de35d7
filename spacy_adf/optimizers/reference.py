"""Dense reference ADF: NOTES.md section 1 written out literally, O(all
weights) per update. Used only to check the sparse implementation."""
import numpy


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
