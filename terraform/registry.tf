resource "google_artifact_registry_repository" "images" {
  #checkov:skip=CKV_GCP_84:Images hold no secrets (those live in Secret Manager); Google-managed encryption is our policy.
  repository_id = "frontdoor"
  location      = var.region
  format        = "DOCKER"
  description   = "frontdoor container images (one image: the API and every worker)"
  depends_on    = [google_project_service.apis]

  docker_config {
    immutable_tags = true
  }
}
