# Topics, push subscriptions (OIDC-authenticated) with retry policy and dead letter topics.
# Topic names equal the app's defaults (frontdoor/settings.py); push endpoints are the workers' roots.

resource "google_pubsub_topic" "generation_jobs" {
  #checkov:skip=CKV_GCP_83:Google-managed encryption is our policy; CMEK would add a KMS key ring to operate for messages kept at most 7 days.
  name                       = "generation-jobs"
  message_retention_duration = "86400s"
  depends_on                 = [google_project_service.apis]
}

resource "google_pubsub_topic" "generation_jobs_dead_letter" {
  #checkov:skip=CKV_GCP_83:Google-managed encryption is our policy; CMEK would add a KMS key ring to operate for messages kept at most 7 days.
  name                       = "generation-jobs-dead-letter"
  message_retention_duration = "604800s"
  depends_on                 = [google_project_service.apis]
}

resource "google_pubsub_topic" "signal_events" {
  #checkov:skip=CKV_GCP_83:Google-managed encryption is our policy; CMEK would add a KMS key ring to operate for messages kept at most 7 days.
  name                       = "signal-events"
  message_retention_duration = "86400s"
  depends_on                 = [google_project_service.apis]
}

resource "google_pubsub_topic" "signal_events_dead_letter" {
  #checkov:skip=CKV_GCP_83:Google-managed encryption is our policy; CMEK would add a KMS key ring to operate for messages kept at most 7 days.
  name                       = "signal-events-dead-letter"
  message_retention_duration = "604800s"
  depends_on                 = [google_project_service.apis]
}

# Sign-in codes for the operators' mailer (the production mail port).
resource "google_pubsub_topic" "mail" {
  #checkov:skip=CKV_GCP_83:Google-managed encryption is our policy; CMEK would add a KMS key ring to operate for messages kept at most 7 days.
  name                       = "mail"
  message_retention_duration = "86400s"
  depends_on                 = [google_project_service.apis]
}

resource "google_pubsub_subscription" "generation_jobs" {
  name  = "generation-jobs-push"
  topic = google_pubsub_topic.generation_jobs.id
  # A job may wait on the authoring model; redelivery before it finishes would only be acked
  # as "held by another worker", but costs a request.
  ack_deadline_seconds = 600

  push_config {
    push_endpoint = google_cloud_run_v2_service.worker["generation"].uri
    oidc_token {
      service_account_email = google_service_account.invoker.email
      audience              = local.push_audience
    }
  }

  retry_policy {
    minimum_backoff = "10s"
    maximum_backoff = "600s"
  }

  # A crashed worker's job lease (JOB_LEASE_SECONDS, 30 s, renewed while it works) lapses soon;
  # redeliveries before then are refused, so the attempts must span past it (they do, by far).
  dead_letter_policy {
    dead_letter_topic     = google_pubsub_topic.generation_jobs_dead_letter.id
    max_delivery_attempts = max(var.max_delivery_attempts, 10)
  }
}

# Dead-lettered jobs are marked failed (so pollers and callbacks learn of it) ...
resource "google_pubsub_subscription" "generation_jobs_dead_letter" {
  name                 = "generation-jobs-dead-letter-push"
  topic                = google_pubsub_topic.generation_jobs_dead_letter.id
  ack_deadline_seconds = 60

  push_config {
    push_endpoint = google_cloud_run_v2_service.worker["generation_dead_letter"].uri
    oidc_token {
      service_account_email = google_service_account.invoker.email
      audience              = local.push_audience
    }
  }

  retry_policy {
    minimum_backoff = "10s"
    maximum_backoff = "600s"
  }
}

# ... and kept for inspection: the backlog alert watches these pull subscriptions.
resource "google_pubsub_subscription" "generation_jobs_dead_letter_hold" {
  name                       = "generation-jobs-dead-letter-hold"
  topic                      = google_pubsub_topic.generation_jobs_dead_letter.id
  message_retention_duration = "604800s"
  expiration_policy {
    ttl = ""
  }
}

resource "google_pubsub_subscription" "signal_events" {
  name                 = "signal-events-push"
  topic                = google_pubsub_topic.signal_events.id
  ack_deadline_seconds = 60

  push_config {
    push_endpoint = google_cloud_run_v2_service.worker["ingest"].uri
    oidc_token {
      service_account_email = google_service_account.invoker.email
      audience              = local.push_audience
    }
  }

  retry_policy {
    minimum_backoff = "5s"
    maximum_backoff = "300s"
  }

  dead_letter_policy {
    dead_letter_topic     = google_pubsub_topic.signal_events_dead_letter.id
    max_delivery_attempts = var.max_delivery_attempts
  }
}

resource "google_pubsub_subscription" "signal_events_dead_letter_hold" {
  name                       = "signal-events-dead-letter-hold"
  topic                      = google_pubsub_topic.signal_events_dead_letter.id
  message_retention_duration = "604800s"
  expiration_policy {
    ttl = ""
  }
}
