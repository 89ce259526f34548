package io.sluice.core.health;

/**
 * What backs one checked endpoint's verdict on this node, for metrics: how many vantages count
 * (fresh results over a healthy probe path), how many of them agree with the published verdict, and
 * when this node last got a check result for it ({@code lastResultMillis}; when none has come yet,
 * when its checks began).
 */
public record ProbeEvidence(int vantagesEligible, int vantagesAgreeing, long lastResultMillis) {}
