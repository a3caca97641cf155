# Log-based metrics and the alerts that need a person. Each alert's documentation says what
# to do; terraform/README.md has the longer runbook.

resource "google_monitoring_notification_channel" "operators" {
  display_name = "frontdoor operators"
  type         = "email"
  labels = {
    email_address = var.alert_email
  }
  depends_on = [google_project_service.apis]
}

# The app logs one JSON line with `event` set when a job or a delivery fails for good.
resource "google_logging_metric" "failed_jobs" {
  name        = "frontdoor/failed_jobs"
  description = "Generation jobs marked failed (model errors, gate failures after the retry, dead letters)."
  filter      = "resource.type=\"cloud_run_revision\" AND jsonPayload.event=\"job_failed\""
  metric_descriptor {
    metric_kind = "DELTA"
    value_type  = "INT64"
    unit        = "1"
  }
}

resource "google_logging_metric" "failed_deliveries" {
  name        = "frontdoor/failed_deliveries"
  description = "Webhook deliveries and job callbacks that failed after their last retry."
  filter      = "resource.type=\"cloud_run_revision\" AND jsonPayload.event=\"delivery_failed\""
  metric_descriptor {
    metric_kind = "DELTA"
    value_type  = "INT64"
    unit        = "1"
  }
}

resource "google_logging_metric" "api_5xx" {
  name        = "frontdoor/api_5xx"
  description = "API responses with a 5xx status, from Cloud Run's request log."
  filter      = "resource.type=\"cloud_run_revision\" AND resource.labels.service_name=\"${google_cloud_run_v2_service.api.name}\" AND httpRequest.status>=500"
  metric_descriptor {
    metric_kind = "DELTA"
    value_type  = "INT64"
    unit        = "1"
  }
}

resource "google_monitoring_alert_policy" "api_5xx" {
  display_name = "frontdoor: API 5xx rate"
  combiner     = "OR"
  conditions {
    display_name = "5xx responses per second over 5 minutes"
    condition_threshold {
      filter          = "metric.type=\"logging.googleapis.com/user/${google_logging_metric.api_5xx.name}\" AND resource.type=\"cloud_run_revision\""
      comparison      = "COMPARISON_GT"
      threshold_value = var.error_rate_threshold
      duration        = "300s"
      aggregations {
        alignment_period   = "60s"
        per_series_aligner = "ALIGN_RATE"
      }
    }
  }
  notification_channels = [google_monitoring_notification_channel.operators.id]
  documentation {
    mime_type = "text/markdown"
    content   = "The API answers 5xx. Open Logs Explorer with `severity>=ERROR` on frontdoor-api; each line has `request_id`. See terraform/README.md, alert 'API 5xx rate'."
  }
}

resource "google_monitoring_alert_policy" "dead_letters" {
  display_name = "frontdoor: dead letter backlog"
  combiner     = "OR"
  conditions {
    display_name = "messages waiting on a dead letter subscription"
    condition_threshold {
      filter          = "metric.type=\"pubsub.googleapis.com/subscription/num_undelivered_messages\" AND resource.type=\"pubsub_subscription\" AND (resource.label.subscription_id=\"${google_pubsub_subscription.generation_jobs_dead_letter_hold.name}\" OR resource.label.subscription_id=\"${google_pubsub_subscription.signal_events_dead_letter_hold.name}\")"
      comparison      = "COMPARISON_GT"
      threshold_value = 0
      duration        = "300s"
      aggregations {
        alignment_period   = "300s"
        per_series_aligner = "ALIGN_MAX"
      }
    }
  }
  notification_channels = [google_monitoring_notification_channel.operators.id]
  documentation {
    mime_type = "text/markdown"
    content   = "Messages failed every push attempt. Pull one from the `*-dead-letter-hold` subscription, read the worker's error log for its message id, fix, then republish it to the source topic. See terraform/README.md, alert 'dead letter backlog'."
  }
}

resource "google_monitoring_alert_policy" "failed_jobs" {
  display_name = "frontdoor: failed generation jobs"
  combiner     = "OR"
  conditions {
    display_name = "jobs marked failed in the last 15 minutes"
    condition_threshold {
      filter          = "metric.type=\"logging.googleapis.com/user/${google_logging_metric.failed_jobs.name}\" AND resource.type=\"cloud_run_revision\""
      comparison      = "COMPARISON_GT"
      threshold_value = 3
      duration        = "0s"
      aggregations {
        alignment_period   = "900s"
        per_series_aligner = "ALIGN_SUM"
      }
    }
  }
  notification_channels = [google_monitoring_notification_channel.operators.id]
  documentation {
    mime_type = "text/markdown"
    content   = "More than 3 generation jobs failed in 15 minutes: usually the authoring model (quota, key, outage). Check `jsonPayload.event=\"job_failed\"` lines for the reason. See terraform/README.md, alert 'failed generation jobs'."
  }
}

resource "google_monitoring_alert_policy" "failed_deliveries" {
  display_name = "frontdoor: failed deliveries"
  combiner     = "OR"
  conditions {
    display_name = "deliveries failed after their last retry"
    condition_threshold {
      filter          = "metric.type=\"logging.googleapis.com/user/${google_logging_metric.failed_deliveries.name}\" AND resource.type=\"cloud_run_revision\""
      comparison      = "COMPARISON_GT"
      threshold_value = 0
      duration        = "0s"
      aggregations {
        alignment_period   = "3600s"
        per_series_aligner = "ALIGN_SUM"
      }
    }
  }
  notification_channels = [google_monitoring_notification_channel.operators.id]
  documentation {
    mime_type = "text/markdown"
    content   = "A partner endpoint refused deliveries for about three days. The partner lists them with GET .../webhooks/{id}/deliveries?status=failed and replays them; tell them. See terraform/README.md, alert 'failed deliveries'."
  }
}
